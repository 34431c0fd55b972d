//! Finding or creating the new ReplicaSet (`getNewReplicaSet` in `sync.go`), with its
//! revision, replica annotations and hash-collision handling.

use serde_json::{json, Map, Value};

use super::util::*;
use super::DeploymentSync;
use crate::api::WriteOptions;
use crate::controllers::replicaset::{controller_ref, controller_uid, spec_replicas};
use crate::controllers::typed::template_hash;
use crate::error::{go_quote, ApiError, ApiResult};
use crate::meta;
use crate::registry;

impl DeploymentSync<'_> {
    /// `getNewReplicaSet`.
    pub(super) fn get_new_replica_set(
        &mut self,
        existing: Option<usize>,
        old: &[usize],
        create: bool,
    ) -> ApiResult<Option<usize>> {
        let max_old = old
            .iter()
            .filter_map(|&i| revision(self.rs(i)))
            .max()
            .unwrap_or(0);
        let new_revision = max_old + 1;
        if let Some(i) = existing {
            let mut rs = self.rs(i).clone();
            let annotations_updated =
                set_new_rs_annotations(&self.dv, &self.spec, &mut rs, new_revision, true);
            let min_ready = rs["spec"]["minReadySeconds"].as_i64().unwrap_or(0);
            if annotations_updated || min_ready != self.spec.min_ready_seconds {
                set_min_ready_seconds(&mut rs, self.spec.min_ready_seconds);
                self.write_set(i, rs)?;
                return Ok(Some(i));
            }
            let rev = meta::annotation(&rs, REVISION).unwrap_or("").to_string();
            let mut needs_update = set_deployment_revision(&mut self.dv, &rev);
            if self.spec.progress_deadline.is_some()
                && get_condition(&self.conditions(), PROGRESSING).is_none()
            {
                let msg = format!("Found new replica set {}", go_quote(self.sets[i].name()));
                self.set_condition(new_condition(
                    PROGRESSING,
                    "True",
                    REASON_FOUND_NEW_RS,
                    &msg,
                    &meta::now(),
                ));
                needs_update = true;
            }
            if needs_update {
                self.write_deployment()?;
            }
            return Ok(Some(i));
        }
        if !create {
            return Ok(None);
        }
        self.create_new_replica_set(old, new_revision).map(Some)
    }

    pub(super) fn create_new_replica_set(
        &mut self,
        old: &[usize],
        new_revision: i64,
    ) -> ApiResult<usize> {
        let collision = self.dv["status"]["collisionCount"].as_i64();
        let template = self.dv["spec"]["template"].clone();
        let hash = template_hash(&template, collision);
        let mut rs_template = template;
        add_template_label(&mut rs_template, &hash);
        let selector = selector_with_hash(&self.dv["spec"]["selector"], &hash);
        let name = format!("{}-{}", self.d.name(), hash);
        let ns = self.d.namespace().to_string();
        let total = self.sum(old, spec_replicas);
        let replicas = self
            .spec
            .new_rs_replicas(total, 0)
            .map_err(ApiError::bad_request)?;
        let mut m = Map::new();
        m.insert("name".into(), json!(name));
        m.insert("namespace".into(), json!(ns));
        m.insert("labels".into(), rs_template["metadata"]["labels"].clone());
        m.insert("annotations".into(), json!({}));
        m.insert(
            "ownerReferences".into(),
            json!([controller_ref(&self.dv, &registry::DEPLOYMENTS)]),
        );
        let mut spec = Map::new();
        spec.insert("replicas".into(), json!(replicas));
        if self.spec.min_ready_seconds != 0 {
            spec.insert("minReadySeconds".into(), json!(self.spec.min_ready_seconds));
        }
        spec.insert("selector".into(), selector);
        spec.insert("template".into(), rs_template);
        let mut rs =
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": m, "spec": spec});
        set_new_rs_annotations(&self.dv, &self.spec, &mut rs, new_revision, false);

        let (created, already_exists) =
            match self
                .api
                .create(&registry::REPLICASETS, &ns, rs, &WriteOptions::default())
            {
                Ok(created) => (created, false),
                Err(e) if e.code == 409 && e.reason == "AlreadyExists" => {
                    let existing = self.api.get(&registry::REPLICASETS, &ns, &name)?;
                    let ours = controller_uid(&existing.value) == Some(meta::uid(&self.dv));
                    if ours
                        && equal_ignore_hash(
                            &self.dv["spec"]["template"],
                            &existing.value["spec"]["template"],
                        )
                    {
                        (existing, true)
                    } else {
                        // A hash collision: bump collisionCount so the next try hashes differently.
                        self.dv["status"]["collisionCount"] = json!(collision.unwrap_or(0) + 1);
                        self.write_deployment()?;
                        return Err(e);
                    }
                }
                Err(e) if e.has_cause("NamespaceTerminating") => return Err(e),
                Err(e) => {
                    let msg = format!(
                        "Failed to create new replica set {}: {}",
                        go_quote(&name),
                        e.message
                    );
                    if self.spec.progress_deadline.is_some() {
                        self.set_condition(new_condition(
                            PROGRESSING,
                            "False",
                            REASON_RS_CREATE_ERROR,
                            &msg,
                            &meta::now(),
                        ));
                        // The create error is what gets retried; upstream drops this status
                        // write's error too (`_, _ = UpdateStatus` in `getNewReplicaSet`).
                        let _ = self.write_deployment();
                    }
                    self.event("Warning", REASON_RS_CREATE_ERROR, &msg);
                    return Err(e);
                }
            };
        if !already_exists && replicas > 0 {
            self.event(
                "Normal",
                "ScalingReplicaSet",
                &format!(
                    "Scaled up replica set {} from 0 to {}",
                    created.name(),
                    replicas
                ),
            );
        }
        let mut needs_update = set_deployment_revision(&mut self.dv, &new_revision.to_string());
        if !already_exists && self.spec.progress_deadline.is_some() {
            let msg = format!("Created new replica set {}", go_quote(created.name()));
            self.set_condition(new_condition(
                PROGRESSING,
                "True",
                REASON_NEW_RS,
                &msg,
                &meta::now(),
            ));
            needs_update = true;
        }
        self.sets.push(created);
        if needs_update {
            self.write_deployment()?;
        }
        Ok(self.sets.len() - 1)
    }
}

/// `spec.minReadySeconds` (omitted when zero, as Go's omitempty).
fn set_min_ready_seconds(rs: &mut Value, seconds: i64) {
    if let Some(spec) = rs["spec"].as_object_mut() {
        if seconds == 0 {
            spec.remove("minReadySeconds");
        } else {
            spec.insert("minReadySeconds".into(), json!(seconds));
        }
    }
}
