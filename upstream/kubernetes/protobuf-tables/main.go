// Command protobuf-tables writes the protobuf message tables the embedded cluster decodes request
// bodies with (kwok/src/protobuf/schema/*.rs), from the Go API types of the pinned release: field
// numbers from each field's `protobuf` tag (the numbers of the package's generated.proto), JSON
// names and presence from its `json` tag and Go type. Every message reachable from the kinds the
// embedded cluster serves is written, in one Rust module per API package.
//
// Usage: protobuf-tables DIR   (upstream/protobuf-tables.sh runs it and checks the result)
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// The bodies a client may send: every served kind, the subresource bodies and DeleteOptions.
var roots = []any{
	corev1.Binding{}, corev1.ConfigMap{}, corev1.Endpoints{}, corev1.Event{}, corev1.LimitRange{},
	corev1.Namespace{}, corev1.Node{}, corev1.PersistentVolume{}, corev1.PersistentVolumeClaim{},
	corev1.Pod{}, corev1.PodTemplate{}, corev1.ReplicationController{}, corev1.ResourceQuota{},
	corev1.Secret{}, corev1.Service{}, corev1.ServiceAccount{},
	appsv1.ControllerRevision{}, appsv1.DaemonSet{}, appsv1.Deployment{}, appsv1.ReplicaSet{},
	appsv1.StatefulSet{},
	autoscalingv1.HorizontalPodAutoscaler{}, autoscalingv1.Scale{},
	autoscalingv2.HorizontalPodAutoscaler{},
	batchv1.CronJob{}, batchv1.Job{},
	certificatesv1.CertificateSigningRequest{},
	coordinationv1.Lease{},
	discoveryv1.EndpointSlice{},
	eventsv1.Event{},
	networkingv1.Ingress{}, networkingv1.IngressClass{}, networkingv1.NetworkPolicy{},
	nodev1.RuntimeClass{},
	policyv1.Eviction{}, policyv1.PodDisruptionBudget{},
	rbacv1.ClusterRole{}, rbacv1.ClusterRoleBinding{}, rbacv1.Role{}, rbacv1.RoleBinding{},
	schedulingv1.PriorityClass{},
	storagev1.CSIDriver{}, storagev1.CSINode{}, storagev1.CSIStorageCapacity{}, storagev1.StorageClass{},
	storagev1.VolumeAttachment{},
	authenticationv1.TokenRequest{}, authenticationv1.TokenReview{}, authenticationv1.SelfSubjectReview{},
	authorizationv1.SelfSubjectAccessReview{}, authorizationv1.SubjectAccessReview{},
	authorizationv1.LocalSubjectAccessReview{}, authorizationv1.SelfSubjectRulesReview{},
	apiextensionsv1.CustomResourceDefinition{},
	apiregistrationv1.APIService{},
	metav1.DeleteOptions{},
}

// Types whose protobuf form upstream writes by hand; the decoder knows each by its kind.
var special = map[reflect.Type]string{
	reflect.TypeOf(resource.Quantity{}):    "Quantity",
	reflect.TypeOf(intstr.IntOrString{}):   "IntOrString",
	reflect.TypeOf(metav1.Time{}):          "Time",
	reflect.TypeOf(metav1.MicroTime{}):     "MicroTime",
	reflect.TypeOf(metav1.FieldsV1{}):      "FieldsV1",
	reflect.TypeOf(runtime.RawExtension{}): "RawExtension",
	// The same message (bytes raw = 1) and the same JSON (the raw bytes, or null).
	reflect.TypeOf(apiextensionsv1.JSON{}): "RawExtension",
}

// Types whose JSON is a schema or something else (an array, a bool, a string list), each a
// message around a JSONSchemaProps; the decoder is given the schema's table.
var schemaOr = map[reflect.Type]string{
	reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrArray{}):       "SchemaOrArray",
	reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrBool{}):        "SchemaOrBool",
	reflect.TypeOf(apiextensionsv1.JSONSchemaPropsOrStringArray{}): "SchemaOrStringArray",
}

type field struct {
	shape  string // opt, keep, list, map, inline
	number string
	json   string
	kind   string // Str, I32, ..., Msg(&NAME) or Msg(&pkg::NAME)
}

type message struct {
	module, static, goName string
	fields                 []field
}

var messages = map[reflect.Type]*message{}

func module(t reflect.Type) string {
	path := t.PkgPath()
	path = strings.TrimPrefix(path, "k8s.io/api/")
	path = strings.TrimPrefix(path, "k8s.io/apimachinery/pkg/apis/")
	path = strings.TrimPrefix(path, "k8s.io/apiextensions-apiserver/pkg/apis/")
	path = strings.TrimPrefix(path, "k8s.io/kube-aggregator/pkg/apis/")
	return strings.ReplaceAll(path, "/", "_")
}

func screaming(name string) string {
	var out []rune
	runes := []rune(name)
	for i, r := range runes {
		upper := r >= 'A' && r <= 'Z'
		if i > 0 && upper {
			prevLower := runes[i-1] >= 'a' && runes[i-1] <= 'z' || runes[i-1] >= '0' && runes[i-1] <= '9'
			nextLower := i+1 < len(runes) && runes[i+1] >= 'a' && runes[i+1] <= 'z'
			prevUpper := runes[i-1] >= 'A' && runes[i-1] <= 'Z'
			if prevLower || (prevUpper && nextLower) {
				out = append(out, '_')
			}
		}
		out = append(out, r)
	}
	return strings.ToUpper(string(out))
}

// ref names message m as module from sees it, wrapped in kind (Msg, Items, ...) unless kind is "".
func ref(kind string, m *message, from string) string {
	name := m.static
	if m.module != from {
		name = m.module + "::" + name
	}
	if kind == "" {
		return name
	}
	return kind + "(&" + name + ")"
}

// kindOf names the value a field carries; from is the module of the message holding the field.
func kindOf(t reflect.Type, from string) string {
	if k, ok := special[t]; ok {
		return k
	}
	if k, ok := schemaOr[t]; ok {
		return ref(k, visit(reflect.TypeOf(apiextensionsv1.JSONSchemaProps{})), from)
	}
	switch t.Kind() {
	case reflect.String:
		return "Str"
	case reflect.Bool:
		return "Bool"
	case reflect.Int32:
		return "I32"
	case reflect.Int64, reflect.Int:
		return "I64"
	case reflect.Float64:
		return "F64"
	case reflect.Struct:
		return ref("Msg", visit(t), from)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "Bytes"
		}
		if t.Name() != "" {
			// A named slice as a map value (authorization's ExtraValue) travels as a message of
			// one repeated field; its JSON is still the plain array.
			return ref("Items", visitNamedSlice(t), from)
		}
	}
	panic(fmt.Sprintf("no protobuf kind for %s (%s)", t, t.Kind()))
}

func visitNamedSlice(t reflect.Type) *message {
	if m, ok := messages[t]; ok {
		return m
	}
	m := &message{module: module(t), static: screaming(t.Name()), goName: t.Name()}
	messages[t] = m
	m.fields = []field{{shape: "list", number: "1", json: "items", kind: kindOf(t.Elem(), m.module)}}
	return m
}

func visit(t reflect.Type) *message {
	if m, ok := messages[t]; ok {
		return m
	}
	m := &message{module: module(t), static: screaming(t.Name()), goName: t.Name()}
	messages[t] = m
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("protobuf")
		if tag == "" || f.Tag.Get("json") == "-" {
			continue
		}
		parts := strings.Split(tag, ",")
		number := parts[1]
		jsonTag := strings.Split(f.Tag.Get("json"), ",")
		name, omitempty, inline := jsonTag[0], false, false
		for _, option := range jsonTag[1:] {
			omitempty = omitempty || option == "omitempty"
			inline = inline || (option == "inline" && name == "")
		}
		if inline {
			m.fields = append(m.fields, field{shape: "inline", number: number, kind: ref("", visit(f.Type), m.module)})
			continue
		}
		{
			t := f.Type
			shape := ""
			switch {
			case t.Kind() == reflect.Pointer:
				shape, t = "keep", t.Elem()
			case t.Kind() == reflect.Map:
				shape, t = "map", t.Elem()
			// A named slice is a repeated field too; only as a map value does it need a message.
			case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
				shape, t = "list", t.Elem()
			case t.Kind() == reflect.Struct:
				shape = "keep"
			case omitempty:
				shape = "opt"
			default:
				shape = "keep"
			}
			if t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			m.fields = append(m.fields, field{shape: shape, number: number, json: name, kind: kindOf(t, m.module)})
		}
	}
	return m
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: protobuf-tables DIR")
		os.Exit(2)
	}
	for _, r := range roots {
		visit(reflect.TypeOf(r))
	}
	byModule := map[string][]*message{}
	for _, m := range messages {
		byModule[m.module] = append(byModule[m.module], m)
	}
	for mod, ms := range byModule {
		sort.Slice(ms, func(i, j int) bool { return ms[i].static < ms[j].static })
		if err := os.WriteFile(filepath.Join(os.Args[1], mod+".rs"), []byte(render(mod, ms)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "protobuf-tables:", err)
			os.Exit(1)
		}
	}
}

func render(mod string, ms []*message) string {
	kinds, helpers, modules := map[string]bool{}, map[string]bool{"message": true, "Message": true}, map[string]bool{}
	var body strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&body, "\npub static %s: Message = message(\n    %q,\n    &[\n", m.static, m.goName)
		for _, f := range m.fields {
			helpers[f.shape] = true
			if f.shape == "inline" {
				if i := strings.Index(f.kind, "::"); i > 0 {
					modules[f.kind[:i]] = true
				}
				fmt.Fprintf(&body, "        inline(%s, &%s),\n", f.number, f.kind)
				continue
			}
			k := f.kind
			if open := strings.Index(k, "(&"); open > 0 {
				kinds[k[:open]] = true
				if i := strings.Index(k, "::"); i > 0 {
					modules[k[open+len("(&"):i]] = true
				}
			} else {
				kinds[k] = true
			}
			fmt.Fprintf(&body, "        %s(%s, %q, %s),\n", f.shape, f.number, f.json, k)
		}
		body.WriteString("    ],\n);\n")
	}
	var out strings.Builder
	fmt.Fprintf(&out, "//! `%s` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API\n", strings.Replace(mod, "_", "/", 1))
	out.WriteString("//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`\n")
	out.WriteString("//! tags and Go types): not edited by hand.\n\n")
	if len(kinds) > 0 {
		out.WriteString("use super::Kind::{" + strings.Join(sortedKeys(kinds), ", ") + "};\n")
	}
	var imports []string
	for m := range modules {
		imports = append(imports, m)
	}
	for h := range helpers {
		imports = append(imports, h)
	}
	sort.Slice(imports, func(i, j int) bool {
		return strings.ToLower(imports[i]) < strings.ToLower(imports[j]) || (strings.ToLower(imports[i]) == strings.ToLower(imports[j]) && imports[i] < imports[j])
	})
	out.WriteString("use super::{" + strings.Join(imports, ", ") + "};\n")
	out.WriteString(body.String())
	return out.String()
}

func sortedKeys(m map[string]bool) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
