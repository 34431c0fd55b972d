//! Bodies captured from real kubectl (`-v=9` prints them), each decoded and compared with the
//! object the same command prints with `--dry-run=client -o json`.

use serde_json::json;

use super::hex;
use crate::protobuf::decode;

/// `kubectl create namespace gpu-drv` (kubectl 1.32).
pub(super) const NS_BODY: &str = concat!(
    "6b3873000a0f0a02763112094e616d657370616365121f0a170a076770752d64727612001a0022002a00320038004200",
    "12001a020a001a002200",
);

#[test]
fn kubectl_1_32_ns() {
    let body = hex(NS_BODY);
    let expected = json!({
        "kind": "Namespace",
        "apiVersion": "v1",
        "metadata": {
            "name": "gpu-drv",
            "creationTimestamp": null
        },
        "spec": {},
        "status": {}
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create deployment web --image=nginx --replicas=2` (kubectl 1.32).
pub(super) const DEPLOYMENT_BODY: &str = concat!(
    "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412ab010a1f0a0377656212001a0022002a00320038",
    "0042005a0a0a036170701203776562127a0802120c0a0a0a0361707012037765621a600a1c0a0012001a0022002a0032",
    "00380042005a0a0a036170701203776562124012220a056e67696e7812056e67696e782a0042006a0072008001008801",
    "00900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a00280038001a0c080010",
    "0018002000280038001a002200",
);

#[test]
fn kubectl_1_32_deploy() {
    let body = hex(DEPLOYMENT_BODY);
    let expected = json!({
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {
            "name": "web",
            "creationTimestamp": null,
            "labels": {
                "app": "web"
            }
        },
        "spec": {
            "replicas": 2,
            "selector": {
                "matchLabels": {
                    "app": "web"
                }
            },
            "template": {
                "metadata": {
                    "creationTimestamp": null,
                    "labels": {
                        "app": "web"
                    }
                },
                "spec": {
                    "containers": [
                        {
                            "name": "nginx",
                            "image": "nginx",
                            "resources": {}
                        }
                    ]
                }
            },
            "strategy": {}
        },
        "status": {}
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create deployment zero --image=nginx --replicas=0 --port=8080 -- sleep 3600` (kubectl 1.32).
pub(super) const DEPLOY0_BODY: &str = concat!(
    "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412ca010a210a047a65726f12001a0022002a003200",
    "380042005a0b0a0361707012047a65726f1296010800120d0a0b0a0361707012047a65726f1a7b0a1d0a0012001a0022",
    "002a003200380042005a0b0a0361707012047a65726f125a123c0a056e67696e7812056e67696e781a05736c6565701a",
    "04333630302a00320b0a00100018903f22002a0042006a007200800100880100900100a201001a00320042004a005200",
    "5800600068008201008a01009a0100c2010022020a00280038001a0c0800100018002000280038001a002200",
);

#[test]
fn kubectl_1_32_deploy0() {
    let body = hex(DEPLOY0_BODY);
    let expected = json!({
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {
            "name": "zero",
            "creationTimestamp": null,
            "labels": {
                "app": "zero"
            }
        },
        "spec": {
            "replicas": 0,
            "selector": {
                "matchLabels": {
                    "app": "zero"
                }
            },
            "template": {
                "metadata": {
                    "creationTimestamp": null,
                    "labels": {
                        "app": "zero"
                    }
                },
                "spec": {
                    "containers": [
                        {
                            "name": "nginx",
                            "image": "nginx",
                            "command": [
                                "sleep",
                                "3600"
                            ],
                            "ports": [
                                {
                                    "containerPort": 8080
                                }
                            ],
                            "resources": {}
                        }
                    ]
                }
            },
            "strategy": {}
        },
        "status": {}
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create deployment multi --image=busybox --image=nginx:1.27` (kubectl 1.32).
pub(super) const DEPLOY2_BODY: &str = concat!(
    "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412e2010a230a056d756c746912001a0022002a0032",
    "00380042005a0c0a0361707012056d756c746912ac010801120e0a0c0a0361707012056d756c74691a8f010a1e0a0012",
    "001a0022002a003200380042005a0c0a0361707012056d756c7469126d12260a0762757379626f78120762757379626f",
    "782a0042006a007200800100880100900100a2010012270a056e67696e78120a6e67696e783a312e32372a0042006a00",
    "7200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c2010022020a002800",
    "38001a0c0800100018002000280038001a002200",
);

#[test]
fn kubectl_1_32_deploy2() {
    let body = hex(DEPLOY2_BODY);
    let expected = json!({
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {
            "name": "multi",
            "creationTimestamp": null,
            "labels": {
                "app": "multi"
            }
        },
        "spec": {
            "replicas": 1,
            "selector": {
                "matchLabels": {
                    "app": "multi"
                }
            },
            "template": {
                "metadata": {
                    "creationTimestamp": null,
                    "labels": {
                        "app": "multi"
                    }
                },
                "spec": {
                    "containers": [
                        {
                            "name": "busybox",
                            "image": "busybox",
                            "resources": {}
                        },
                        {
                            "name": "nginx",
                            "image": "nginx:1.27",
                            "resources": {}
                        }
                    ]
                }
            },
            "strategy": {}
        },
        "status": {}
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create deployment web133 --image=nginx --replicas=3` (kubectl 1.33).
pub(super) const DEPLOY133_BODY: &str = concat!(
    "6b3873000a150a07617070732f7631120a4465706c6f796d656e7412b8010a250a0677656231333312001a0022002a00",
    "3200380042005a0d0a0361707012067765623133331280010803120f0a0d0a0361707012067765623133331a630a1f0a",
    "0012001a0022002a003200380042005a0d0a036170701206776562313333124012220a056e67696e7812056e67696e78",
    "2a0042006a007200800100880100900100a201001a00320042004a0052005800600068008201008a01009a0100c20100",
    "22020a00280038001a0c0800100018002000280038001a002200",
);

#[test]
fn kubectl_1_33_deploy133() {
    let body = hex(DEPLOY133_BODY);
    let expected = json!({
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {
            "name": "web133",
            "creationTimestamp": null,
            "labels": {
                "app": "web133"
            }
        },
        "spec": {
            "replicas": 3,
            "selector": {
                "matchLabels": {
                    "app": "web133"
                }
            },
            "template": {
                "metadata": {
                    "creationTimestamp": null,
                    "labels": {
                        "app": "web133"
                    }
                },
                "spec": {
                    "containers": [
                        {
                            "name": "nginx",
                            "image": "nginx",
                            "resources": {}
                        }
                    ]
                }
            },
            "strategy": {}
        },
        "status": {}
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create pdb p --selector=app=x --min-available=1` (kubectl 1.32).
pub(super) const PDB_BODY: &str = concat!(
    "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e42756467657412350a110a017012001a",
    "0022002a0032003800420012140a06080010011a00120a0a080a036170701201781a0a080018002000280030001a0022",
    "00",
);

#[test]
fn kubectl_1_32_pdb() {
    let body = hex(PDB_BODY);
    let expected = json!({
        "kind": "PodDisruptionBudget",
        "apiVersion": "policy/v1",
        "metadata": {
            "name": "p",
            "creationTimestamp": null
        },
        "spec": {
            "minAvailable": 1,
            "selector": {
                "matchLabels": {
                    "app": "x"
                }
            }
        },
        "status": {
            "disruptionsAllowed": 0,
            "currentHealthy": 0,
            "desiredHealthy": 0,
            "expectedPods": 0
        }
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create pdb p2 --selector='app=x,tier in (web,api),!legacy' --max-unavailable=50%` (kubectl 1.32).
pub(super) const PDB2_BODY: &str = concat!(
    "6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e42756467657412670a120a0270321200",
    "1a0022002a00320038004200124512380a080a0361707012017812160a066c6567616379120c446f65734e6f74457869",
    "737412140a04746965721202496e1a036170691a037765621a09080110001a033530251a0a080018002000280030001a",
    "002200",
);

#[test]
fn kubectl_1_32_pdb2() {
    let body = hex(PDB2_BODY);
    let expected = json!({
        "kind": "PodDisruptionBudget",
        "apiVersion": "policy/v1",
        "metadata": {
            "name": "p2",
            "creationTimestamp": null
        },
        "spec": {
            "selector": {
                "matchLabels": {
                    "app": "x"
                },
                "matchExpressions": [
                    {
                        "key": "legacy",
                        "operator": "DoesNotExist"
                    },
                    {
                        "key": "tier",
                        "operator": "In",
                        "values": [
                            "api",
                            "web"
                        ]
                    }
                ]
            },
            "maxUnavailable": "50%"
        },
        "status": {
            "disruptionsAllowed": 0,
            "currentHealthy": 0,
            "desiredHealthy": 0,
            "expectedPods": 0
        }
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create configmap c --from-literal=a=b --from-literal=empty=` (kubectl 1.32).
pub(super) const CM_BODY: &str = concat!(
    "6b3873000a0f0a0276311209436f6e6669674d617012260a110a016312001a0022002a0032003800420012060a016112",
    "016212090a05656d70747912001a002200",
);

#[test]
fn kubectl_1_32_cm() {
    let body = hex(CM_BODY);
    let expected = json!({
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {
            "name": "c",
            "creationTimestamp": null
        },
        "data": {
            "a": "b",
            "empty": ""
        }
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create configmap c2 --from-file=blob=<00 01 ff "bin"> --from-file=hello.txt` (kubectl 1.32).
pub(super) const CM2_BODY: &str = concat!(
    "6b3873000a0f0a0276311209436f6e6669674d617012390a120a02633212001a0022002a0032003800420012130a0968",
    "656c6c6f2e747874120668656c6c6f0a1a0e0a04626c6f6212060001ff62696e1a002200",
);

#[test]
fn kubectl_1_32_cm2() {
    let body = hex(CM2_BODY);
    let expected = json!({
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {
            "name": "c2",
            "creationTimestamp": null
        },
        "data": {
            "hello.txt": "hello\n"
        },
        "binaryData": {
            "blob": "AAH/Ymlu"
        }
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create secret generic s --from-literal=a=b --from-literal=pw='s3cr#t!'` (kubectl 1.32).
pub(super) const SECRET_BODY: &str = concat!(
    "6b3873000a0c0a0276311206536563726574122c0a110a017312001a0022002a0032003800420012060a016112016212",
    "0d0a0270771207733363722374211a001a002200",
);

#[test]
fn kubectl_1_32_secret() {
    let body = hex(SECRET_BODY);
    let expected = json!({
        "kind": "Secret",
        "apiVersion": "v1",
        "metadata": {
            "name": "s",
            "creationTimestamp": null
        },
        "data": {
            "a": "Yg==",
            "pw": "czNjciN0IQ=="
        }
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create secret docker-registry reg --docker-server=r.io --docker-username=u --docker-password=p` (kubectl 1.32).
pub(super) const SECRET2_BODY: &str = concat!(
    "6b3873000a0c0a0276311206536563726574128c010a130a0372656712001a0022002a0032003800420012550a112e64",
    "6f636b6572636f6e6669676a736f6e12407b226175746873223a7b22722e696f223a7b22757365726e616d65223a2275",
    "222c2270617373776f7264223a2270222c2261757468223a2264547077227d7d7d1a1e6b756265726e657465732e696f",
    "2f646f636b6572636f6e6669676a736f6e1a002200",
);

#[test]
fn kubectl_1_32_secret2() {
    let body = hex(SECRET2_BODY);
    let expected = json!({
        "kind": "Secret",
        "apiVersion": "v1",
        "metadata": {
            "name": "reg",
            "creationTimestamp": null
        },
        "data": {
            ".dockerconfigjson": "eyJhdXRocyI6eyJyLmlvIjp7InVzZXJuYW1lIjoidSIsInBhc3N3b3JkIjoicCIsImF1dGgiOiJkVHB3In19fQ=="
        },
        "type": "kubernetes.io/dockerconfigjson"
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create serviceaccount sa1` (kubectl 1.32).
pub(super) const SA_BODY: &str = concat!(
    "6b3873000a140a027631120e536572766963654163636f756e7412150a130a0373613112001a0022002a003200380042",
    "001a002200",
);

#[test]
fn kubectl_1_32_sa() {
    let body = hex(SA_BODY);
    let expected = json!({
        "kind": "ServiceAccount",
        "apiVersion": "v1",
        "metadata": {
            "name": "sa1",
            "creationTimestamp": null
        }
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create job hello2 --image=busybox:1.36 -- echo hello` (kubectl 1.32).
const JOB_BODY: &str = concat!(
    "6b3873000a0f0a0862617463682f763112034a6f621294010a160a0668656c6c6f3212001a0022002a00320038004200",
    "1270326e0a100a0012001a0022002a00320038004200125a12370a0668656c6c6f32120c62757379626f783a312e3336",
    "1a046563686f1a0568656c6c6f2a0042006a007200800100880100900100a201001a054e65766572320042004a005200",
    "5800600068008201008a01009a0100c201001a082000280030003a001a002200",
);

#[test]
fn kubectl_1_32_job() {
    let body = hex(JOB_BODY);
    let expected = json!({
        "kind": "Job",
        "apiVersion": "batch/v1",
        "metadata": {"name": "hello2", "creationTimestamp": null},
        "spec": {
            "template": {
                "metadata": {"creationTimestamp": null},
                "spec": {
                    "containers": [{
                        "name": "hello2",
                        "image": "busybox:1.36",
                        "command": ["echo", "hello"],
                        "resources": {}
                    }],
                    "restartPolicy": "Never"
                }
            }
        },
        "status": {}
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}

/// `kubectl create cronjob nightly --image=busybox:1.36 --schedule="0 3 * * *" -- date` (kubectl 1.32).
const CRON_JOB_BODY: &str = concat!(
    "6b3873000a130a0862617463682f7631120743726f6e4a6f6212b7010a170a076e696768746c7912001a0022002a0032",
    "00380042001299010a09302033202a202a202a1a002a89010a170a076e696768746c7912001a0022002a003200380042",
    "00126e326c0a100a0012001a0022002a00320038004200125812310a076e696768746c79120c62757379626f783a312e",
    "33361a04646174652a0042006a007200800100880100900100a201001a094f6e4661696c757265320042004a00520058",
    "00600068008201008a01009a0100c201001a001a002200",
);

#[test]
fn kubectl_1_32_cronjob() {
    let body = hex(CRON_JOB_BODY);
    let expected = json!({
        "kind": "CronJob",
        "apiVersion": "batch/v1",
        "metadata": {"name": "nightly", "creationTimestamp": null},
        "spec": {
            "schedule": "0 3 * * *",
            "jobTemplate": {
                "metadata": {"name": "nightly", "creationTimestamp": null},
                "spec": {
                    "template": {
                        "metadata": {"creationTimestamp": null},
                        "spec": {
                            "containers": [{
                                "name": "nightly",
                                "image": "busybox:1.36",
                                "command": ["date"],
                                "resources": {}
                            }],
                            "restartPolicy": "OnFailure"
                        }
                    }
                }
            }
        },
        "status": {}
    });
    assert_eq!(decode(&body, crate::registry::SCHEME).unwrap(), expected);
}
