// Command client-go-probe drives a cluster through client-go's typed clients, as operators and
// controllers do: every verb on every kind the embedded cluster serves, with protobuf bodies
// where client-go sends them (typed clients of built-in kinds), and prints one line per call
// with what came back, nothing a cluster makes up (uids, times, versions) in it. The differential
// suite runs it against the embedded cluster and upstream and compares the lines.
//
// Usage: client-go-probe NAMESPACE   (KUBECONFIG names the cluster; the namespace must exist)
package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
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
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
)

// object is what every typed client's kind is: a runtime.Object with metadata.
type object interface {
	runtime.Object
	metav1.Object
}

// client is the method set client-go's generated typed clients share (gentype).
type client[T object, L runtime.Object] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
}

var ctx = context.Background()

func main() {
	if len(os.Args) != 2 || strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintln(os.Stderr, "usage: client-go-probe NAMESPACE   (KUBECONFIG names the cluster)")
		os.Exit(2)
	}
	ns := os.Args[1]
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "client-go-probe:", err)
		os.Exit(2)
	}
	// What typed clients of built-in kinds send and ask for in controllers (kube-controller-manager
	// sets the same): protobuf, JSON for what has no protobuf form.
	config.ContentType = runtime.ContentTypeProtobuf
	config.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	config.QPS, config.Burst = 1000, 1000
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client-go-probe:", err)
		os.Exit(2)
	}
	ext, err := apiextensions.NewForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client-go-probe:", err)
		os.Exit(2)
	}
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: ns} }
	cluster := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: ns + "-" + name} }
	labels := map[string]string{"app": "probe"}
	podSpec := corev1.PodSpec{
		// Never placed, so a delete is immediate on both clusters.
		NodeSelector: map[string]string{"example.com/nowhere": "true"},
		Containers:   []corev1.Container{{Name: "app", Image: "busybox"}},
	}
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec}
	zero := int32(0)
	yes := true
	prefix := networkingv1.PathTypePrefix

	core := cs.CoreV1()
	exercise("configmaps", core.ConfigMaps(ns), &corev1.ConfigMap{ObjectMeta: meta("cm"), Data: map[string]string{"a": "b"}})
	exercise("secrets", core.Secrets(ns), &corev1.Secret{ObjectMeta: meta("secret"), Data: map[string][]byte{"token": []byte("s3cret")}, Type: corev1.SecretTypeOpaque})
	exercise("serviceaccounts", core.ServiceAccounts(ns), &corev1.ServiceAccount{ObjectMeta: meta("sa")})
	exercise("services", core.Services(ns), &corev1.Service{ObjectMeta: meta("svc"), Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}})
	exercise("endpoints", core.Endpoints(ns), &corev1.Endpoints{ObjectMeta: meta("ep"), Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}}, Ports: []corev1.EndpointPort{{Port: 80}}}}})
	exercise("events", core.Events(ns), &corev1.Event{ObjectMeta: meta("ev"), InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p"}, Reason: "Probed", Message: "by client-go", Type: "Normal"})
	exercise("pods", core.Pods(ns), &corev1.Pod{ObjectMeta: meta("pod"), Spec: podSpec})
	exercise("podtemplates", core.PodTemplates(ns), &corev1.PodTemplate{ObjectMeta: meta("template"), Template: template})
	exercise("replicationcontrollers", core.ReplicationControllers(ns), &corev1.ReplicationController{ObjectMeta: meta("rc"), Spec: corev1.ReplicationControllerSpec{Replicas: &zero, Selector: labels, Template: &template}})
	exercise("resourcequotas", core.ResourceQuotas(ns), &corev1.ResourceQuota{ObjectMeta: meta("quota"), Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("100")}}})
	exercise("limitranges", core.LimitRanges(ns), &corev1.LimitRange{ObjectMeta: meta("limits"), Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer, Max: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}}})
	exercise("persistentvolumeclaims", core.PersistentVolumeClaims(ns), &corev1.PersistentVolumeClaim{ObjectMeta: meta("claim"), Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: new(string), Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}})
	exercise("persistentvolumes", core.PersistentVolumes(), &corev1.PersistentVolume{ObjectMeta: cluster("pv"), Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}}}})
	exercise("nodes", core.Nodes(), &corev1.Node{ObjectMeta: cluster("node")})
	exercise("namespaces", core.Namespaces(), &corev1.Namespace{ObjectMeta: cluster("ns")})

	apps := cs.AppsV1()
	selector := &metav1.LabelSelector{MatchLabels: labels}
	exercise("deployments", apps.Deployments(ns), &appsv1.Deployment{ObjectMeta: meta("deploy"), Spec: appsv1.DeploymentSpec{Replicas: &zero, Selector: selector, Template: template}})
	exercise("replicasets", apps.ReplicaSets(ns), &appsv1.ReplicaSet{ObjectMeta: meta("rs"), Spec: appsv1.ReplicaSetSpec{Replicas: &zero, Selector: selector, Template: template}})
	exercise("statefulsets", apps.StatefulSets(ns), &appsv1.StatefulSet{ObjectMeta: meta("sts"), Spec: appsv1.StatefulSetSpec{Replicas: &zero, Selector: selector, Template: template, ServiceName: "svc"}})
	exercise("daemonsets", apps.DaemonSets(ns), &appsv1.DaemonSet{ObjectMeta: meta("ds"), Spec: appsv1.DaemonSetSpec{Selector: selector, Template: template}})
	exercise("controllerrevisions", apps.ControllerRevisions(ns), &appsv1.ControllerRevision{ObjectMeta: meta("rev"), Revision: 1, Data: runtime.RawExtension{Raw: []byte(`{"spec":{}}`)}})

	batch := cs.BatchV1()
	exercise("jobs", batch.Jobs(ns), &batchv1.Job{ObjectMeta: meta("job"), Spec: batchv1.JobSpec{Suspend: &yes, Template: corev1.PodTemplateSpec{Spec: withRestart(podSpec, corev1.RestartPolicyNever)}}})
	exercise("cronjobs", batch.CronJobs(ns), &batchv1.CronJob{ObjectMeta: meta("cron"), Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", Suspend: &yes, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: withRestart(podSpec, corev1.RestartPolicyOnFailure)}}}}})

	target := autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "deploy", APIVersion: "apps/v1"}
	exercise("horizontalpodautoscalers.v2", cs.AutoscalingV2().HorizontalPodAutoscalers(ns), &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: meta("hpa2"), Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: target, MaxReplicas: 3}})
	exercise("horizontalpodautoscalers.v1", cs.AutoscalingV1().HorizontalPodAutoscalers(ns), &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: meta("hpa1"), Spec: autoscalingv1.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "deploy", APIVersion: "apps/v1"}, MaxReplicas: 3}})

	net := cs.NetworkingV1()
	exercise("ingresses", net.Ingresses(ns), &networkingv1.Ingress{ObjectMeta: meta("ing"), Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "shop.example", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "svc", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}}})
	exercise("ingressclasses", net.IngressClasses(), &networkingv1.IngressClass{ObjectMeta: cluster("class"), Spec: networkingv1.IngressClassSpec{Controller: "example.com/ingress"}})
	exercise("networkpolicies", net.NetworkPolicies(ns), &networkingv1.NetworkPolicy{ObjectMeta: meta("deny"), Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{}}})

	one := intstr.FromInt32(1)
	exercise("poddisruptionbudgets", cs.PolicyV1().PodDisruptionBudgets(ns), &policyv1.PodDisruptionBudget{ObjectMeta: meta("pdb"), Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: selector}})
	storage := cs.StorageV1()
	exercise("storageclasses", storage.StorageClasses(), &storagev1.StorageClass{ObjectMeta: cluster("sc"), Provisioner: "example.com/none"})
	exercise("csidrivers", storage.CSIDrivers(), &storagev1.CSIDriver{ObjectMeta: cluster("driver.example.com")})
	exercise("csinodes", storage.CSINodes(), &storagev1.CSINode{ObjectMeta: cluster("node"), Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{Name: "driver.example.com", NodeID: "node-1"}}}})
	volume := "pv-data"
	exercise("volumeattachments", storage.VolumeAttachments(), &storagev1.VolumeAttachment{ObjectMeta: cluster("attachment"), Spec: storagev1.VolumeAttachmentSpec{Attacher: "driver.example.com", NodeName: "typed-parking", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &volume}}})
	capacity := resource.MustParse("100Gi")
	exercise("csistoragecapacities", storage.CSIStorageCapacities(ns), &storagev1.CSIStorageCapacity{ObjectMeta: meta("capacity"), StorageClassName: "standard", NodeTopology: selector, Capacity: &capacity})
	exercise("runtimeclasses", cs.NodeV1().RuntimeClasses(), &nodev1.RuntimeClass{ObjectMeta: cluster("runtime"), Handler: "nvidia"})
	exercise("priorityclasses", cs.SchedulingV1().PriorityClasses(), &schedulingv1.PriorityClass{ObjectMeta: cluster("prio"), Value: 1000})
	holder := "probe"
	exercise("leases", cs.CoordinationV1().Leases(ns), &coordinationv1.Lease{ObjectMeta: meta("lease"), Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}})
	port := int32(80)
	exercise("endpointslices", cs.DiscoveryV1().EndpointSlices(ns), &discoveryv1.EndpointSlice{ObjectMeta: meta("slice"), AddressType: discoveryv1.AddressTypeIPv4, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}}, Ports: []discoveryv1.EndpointPort{{Port: &port}}})
	exercise("events.events.k8s.io", cs.EventsV1().Events(ns), &eventsv1.Event{ObjectMeta: meta("ev2"), EventTime: metav1.NowMicro(), ReportingController: "example.com/probe", ReportingInstance: "probe-1", Action: "Probe", Reason: "Probed", Type: "Normal", Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p"}})

	rbac := cs.RbacV1()
	policy := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}}
	exercise("roles", rbac.Roles(ns), &rbacv1.Role{ObjectMeta: meta("reader"), Rules: policy})
	exercise("clusterroles", rbac.ClusterRoles(), &rbacv1.ClusterRole{ObjectMeta: cluster("reader"), Rules: policy})
	subjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "sa", Namespace: ns}}
	exercise("rolebindings", rbac.RoleBindings(ns), &rbacv1.RoleBinding{ObjectMeta: meta("reader"), Subjects: subjects, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "reader"}})
	exercise("clusterrolebindings", rbac.ClusterRoleBindings(), &rbacv1.ClusterRoleBinding{ObjectMeta: cluster("reader"), Subjects: subjects, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: ns + "-reader"}})

	plural := ns + "widgets"
	exercise("customresourcedefinitions", ext.ApiextensionsV1().CustomResourceDefinitions(), &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: "Widget", ListKind: "WidgetList", Singular: ns + "widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &yes}}}},
		},
	})

	subresources(cs, ns, template, selector)
}

func withRestart(spec corev1.PodSpec, policy corev1.RestartPolicy) corev1.PodSpec {
	spec.RestartPolicy = policy
	return spec
}

// exercise runs create, create again, get, list, update, patch and delete on one kind.
func exercise[T object, L runtime.Object](resource string, c client[T, L], obj T) {
	name := obj.GetName()
	// Labelled for its own kind: a Service's labels are copied onto its Endpoints and
	// EndpointSlices by controllers, which the lists of those kinds must not race with.
	obj.SetLabels(map[string]string{"probe": resource})
	created, err := c.Create(ctx, obj, metav1.CreateOptions{})
	report(resource, "create", created, err)
	if err != nil {
		return
	}
	_, err = c.Create(ctx, obj, metav1.CreateOptions{})
	report(resource, "create again", nil, err)
	got, err := c.Get(ctx, name, metav1.GetOptions{})
	report(resource, "get", got, err)
	list, err := c.List(ctx, metav1.ListOptions{LabelSelector: "probe=" + resource})
	reportList(resource, "list", list, err)
	if err == nil {
		// A controller may write the object between a read and the update (a Deployment's
		// revision annotation): read again and retry, as controllers do.
		var updated, read T
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			var err error
			if read, err = c.Get(ctx, name, metav1.GetOptions{}); err != nil {
				return err
			}
			read.SetLabels(map[string]string{"probe": resource, "step": "updated"})
			notes := read.GetAnnotations()
			if notes == nil {
				notes = map[string]string{}
			}
			notes[note] = "updated by client-go"
			read.SetAnnotations(notes)
			updated, err = c.Update(ctx, read, metav1.UpdateOptions{})
			return err
		})
		report(resource, "update", updated, err)
		// The version read before the update is stale now.
		_, err = c.Update(ctx, read, metav1.UpdateOptions{})
		report(resource, "update stale", nil, err)
	}
	patched, err := c.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"labels":{"patched":"merge"}}}`), metav1.PatchOptions{})
	report(resource, "merge patch", patched, err)
	patched, err = c.Patch(ctx, name, types.JSONPatchType, []byte(`[{"op":"add","path":"/metadata/labels/json","value":"patch"}]`), metav1.PatchOptions{})
	report(resource, "json patch", patched, err)
	dryRun := obj.DeepCopyObject().(T)
	dryRun.SetName(name + "-dry")
	dryRun.SetResourceVersion("")
	created, err = c.Create(ctx, dryRun, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	report(resource, "create dry run", created, err)
	background := metav1.DeletePropagationBackground
	err = c.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background})
	report(resource, "delete", nil, err)
	err = c.Delete(ctx, name+"-missing", metav1.DeleteOptions{})
	report(resource, "delete missing", nil, err)
}

// subresources: scale, status, binding, eviction and token, which typed clients send as protobuf.
func subresources(cs *kubernetes.Clientset, ns string, template corev1.PodTemplateSpec, selector *metav1.LabelSelector) {
	zero := int32(0)
	deployments := cs.AppsV1().Deployments(ns)
	_, err := deployments.Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "scaled"}, Spec: appsv1.DeploymentSpec{Replicas: &zero, Selector: selector, Template: template}}, metav1.CreateOptions{})
	report("deployments", "create scaled", nil, err)
	scale, err := deployments.GetScale(ctx, "scaled", metav1.GetOptions{})
	if err == nil {
		fmt.Printf("deployments get scale: ok replicas=%d selector=%q\n", scale.Spec.Replicas, scale.Status.Selector)
		scale.Spec.Replicas = 0
		scale.ResourceVersion = ""
		scaled, err := deployments.UpdateScale(ctx, "scaled", scale, metav1.UpdateOptions{})
		if err == nil {
			fmt.Printf("deployments update scale: ok replicas=%d\n", scaled.Spec.Replicas)
		} else {
			report("deployments", "update scale", nil, err)
		}
	} else {
		report("deployments", "get scale", nil, err)
	}
	// The Deployment controller writes the status too: read again on a conflict.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := deployments.Get(ctx, "scaled", metav1.GetOptions{})
		if err != nil {
			return err
		}
		current.Status.ObservedGeneration = 7
		_, err = deployments.UpdateStatus(ctx, current, metav1.UpdateOptions{})
		return err
	})
	report("deployments", "update status", nil, err)

	pods := cs.CoreV1().Pods(ns)
	spec := template.Spec
	spec.NodeSelector = nil
	_, err = pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "unbound", Labels: map[string]string{"probe": "bind"}}, Spec: withScheduler(spec, "example.com/nobody")}, metav1.CreateOptions{})
	report("pods", "create unbound", nil, err)
	// A node with no kubelet (the session makes it): the pod stays bound and never runs. A node
	// that does not exist would have the pod collected as an orphan.
	err = pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "unbound"}, Target: corev1.ObjectReference{Kind: "Node", Name: ns + "-parking"}}, metav1.CreateOptions{})
	report("pods", "bind", nil, err)
	err = pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "unbound"}, Target: corev1.ObjectReference{Kind: "Node", Name: "other"}}, metav1.CreateOptions{})
	report("pods", "bind again", nil, err)
	err = pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "missing"}})
	report("pods", "evict missing", nil, err)

	tokens := cs.CoreV1().ServiceAccounts(ns)
	_, err = tokens.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{})
	report("serviceaccounts", "create robot", nil, err)
	seconds := int64(3600)
	token, err := tokens.CreateToken(ctx, "robot", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err == nil {
		fmt.Printf("serviceaccounts create token: ok token=%t expires=%t\n", token.Status.Token != "", !token.Status.ExpirationTimestamp.IsZero())
	} else {
		report("serviceaccounts", "create token", nil, err)
	}
}

func withScheduler(spec corev1.PodSpec, scheduler string) corev1.PodSpec {
	spec.SchedulerName = scheduler
	return spec
}

// The annotation the probe sets; others are the controllers', written at their own pace.
const note = "example.com/note"

// report prints one call's outcome: what identifies the object the server returned, or the
// error as client-go hands it to its caller.
func report(resource, verb string, obj object, err error) {
	if err != nil {
		fmt.Printf("%s %s: %s %d: %s\n", resource, verb, apierrors.ReasonForError(err), code(err), err)
		return
	}
	if obj == nil {
		fmt.Printf("%s %s: ok\n", resource, verb)
		return
	}
	_, noted := obj.GetAnnotations()[note]
	fmt.Printf("%s %s: ok name=%s namespace=%s generation=%d labels=%s noted=%t finalizers=%v deleting=%t\n",
		resource, verb, obj.GetName(), obj.GetNamespace(), obj.GetGeneration(), sorted(obj.GetLabels()),
		noted, obj.GetFinalizers(), obj.GetDeletionTimestamp() != nil)
}

func reportList(resource, verb string, list runtime.Object, err error) {
	if err != nil {
		report(resource, verb, nil, err)
		return
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		fmt.Printf("%s %s: not a list: %v\n", resource, verb, err)
		return
	}
	var names []string
	for _, item := range items {
		if m, err := meta.Accessor(item); err == nil {
			names = append(names, m.GetName())
		}
	}
	sort.Strings(names)
	fmt.Printf("%s %s: ok items=%v\n", resource, verb, names)
}

func code(err error) int32 {
	if status, ok := err.(apierrors.APIStatus); ok {
		return status.Status().Code
	}
	return 0
}

func sorted(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k+"="+m[k])
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}
