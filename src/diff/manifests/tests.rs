use super::*;

const NS: &str = "team-a";

fn one(text: &str) -> Proposal {
    proposal(&[("fleet.yaml".to_string(), text.to_string())], NS)
}

#[test]
fn documents_are_split_counted_and_empty_ones_left_out() {
    let text = "# header only\n---\na: 1\n---\n\n---\nb: [1\n...\n--- \nc: 3\n";
    let docs = documents("f.yaml", text);
    let shown: Vec<(usize, bool)> = docs.iter().map(|(o, d)| (o.document, d.is_ok())).collect();
    assert_eq!(shown, vec![(1, true), (2, false), (3, true)]);
    assert_eq!(docs[0].0.to_string(), "f.yaml, document 1");
    assert!(
        docs[1].1.as_ref().unwrap_err().contains("line"),
        "{:?}",
        docs[1].1
    );
}

#[test]
fn our_objects_are_proposed_in_the_default_namespace_unless_they_name_one() {
    let p = one(
        "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ClusterTemplate\nmetadata: {name: prod}\n\
         spec: {helm: {chartName: c}, services: [{name: ingress, template: nginx, values: 'a: 1'}]}\n---\n\
         apiVersion: hmc.mirantis.com/v1alpha1\nkind: ManagedCluster\n\
         metadata: {name: eu-1, namespace: team-b}\nspec: {template: prod}\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    );
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert_eq!(
        p.objects.cluster_templates[0].namespace().as_deref(),
        Some(NS)
    );
    assert_eq!(p.objects.clusters[0].namespace().as_deref(), Some("team-b"));
    assert_eq!(p.skipped.len(), 1);
    assert_eq!(p.skipped[0].1, "v1/ConfigMap");
    assert_eq!(p.origins.len(), 2);
    assert_eq!(p.origins[1].1.document, 2);
}

#[test]
fn what_apply_would_refuse_is_an_error_naming_its_file_and_document() {
    let p = one(
        "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ManagedCluster\nmetadata: {name: Bad_Name}\n\
         spec: {template: prod}\n---\n\
         apiVersion: hmc.mirantis.com/v1alpha1\nkind: ServiceTemplate\nmetadata: {name: nginx}\n\
         spec: {helm: {chartName: ''}}\n---\n\
         apiVersion: hmc.mirantis.com/v1alpha1\nkind: ClusterTemplate\nmetadata: {name: prod}\n\
         spec: {helm: {chartName: c}, rollout: {maxConcurrent: '0%'}}\n---\n\
         kind: ClusterTemplate\n---\n\
         apiVersion: hmc.mirantis.com/v1alpha1\nkind: ClusterTemplate\nmetadata: {name: x}\nspec: {}\n---\n\
         apiVersion: hmc.mirantis.com/v1alpha1\nkind: ManagedCluster\nmetadata: {}\nspec: {template: x}\n---\n\
         a: &a [*a]\n",
    );
    let errors: Vec<(usize, &str)> = p
        .errors
        .iter()
        .map(|e| (e.origin.document, e.message.as_str()))
        .collect();
    assert_eq!(errors.len(), 7, "{errors:#?}");
    assert!(errors[0].1.contains("lower-case letters"), "{errors:?}");
    assert!(errors[1].1.contains("chartName is empty"), "{errors:?}");
    assert!(errors[2].1.starts_with("spec.rollout"), "{errors:?}");
    assert_eq!(errors[3].1, "apiVersion and kind are required");
    assert_eq!(
        errors[4].1,
        "not a valid ClusterTemplate: missing field `helm`"
    );
    assert_eq!(errors[5].1, "metadata.name is required");
    assert_eq!(errors[6].0, 7);
    assert!(p.objects.clusters.is_empty() && p.objects.cluster_templates.is_empty());
}

#[test]
fn a_later_document_of_the_same_object_replaces_the_earlier_and_lists_are_read() {
    let p = one("apiVersion: v1\nkind: List\nitems:\n\
         - {apiVersion: hmc.mirantis.com/v1alpha1, kind: ManagedCluster, metadata: {name: a}, spec: {template: one}}\n\
         - {apiVersion: hmc.mirantis.com/v1alpha1, kind: ManagedCluster, metadata: {name: a}, spec: {template: two}}\n");
    assert_eq!(p.objects.clusters.len(), 1);
    assert_eq!(p.objects.clusters[0].spec.template, "two");
    assert_eq!(p.origins.len(), 1);
}

#[test]
fn directories_give_their_manifest_files_sorted_and_recursive_goes_down() {
    let dir = std::env::temp_dir().join(format!("hmc-tui-diff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    for f in ["b.yaml", "a.yml", "c.json", "notes.txt", "sub/d.yaml"] {
        std::fs::write(dir.join(f), "").unwrap();
    }
    let root = dir.to_string_lossy().into_owned();
    let names = |recursive| {
        files(std::slice::from_ref(&root), recursive)
            .unwrap()
            .iter()
            .map(|f| f.trim_start_matches(&root).to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(false), ["/a.yml", "/b.yaml", "/c.json"]);
    assert_eq!(names(true), ["/a.yml", "/b.yaml", "/c.json", "/sub/d.yaml"]);
    let missing = read(&format!("{root}/nope.yaml"), &mut std::io::empty()).unwrap_err();
    assert!(missing.message.starts_with("cannot read it"), "{missing:?}");
    let stdin = read("-", &mut "a: 1\n".as_bytes()).unwrap();
    assert_eq!(stdin, "a: 1\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
