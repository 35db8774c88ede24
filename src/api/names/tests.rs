use super::*;

#[test]
fn dns_labels() {
    for ok in ["a", "x-ingress", "0", "a1-b2"] {
        assert!(is_dns_label(ok), "{ok}");
    }
    for bad in ["", "-a", "a-", "A", "a.b", "a_b", "ä"] {
        assert!(!is_dns_label(bad), "{bad}");
    }
}

#[test]
fn cluster_names_at_their_limits() {
    assert_eq!(cluster_name_problem(&"a".repeat(53)), None);
    assert_eq!(
        cluster_name_problem(&"a".repeat(54)),
        Some(CLUSTER_NAME_LENGTH)
    );
    assert_eq!(cluster_name_problem("a.b"), Some(CLUSTER_NAME_CHARACTERS));
    assert!(service_name_problem(&"s".repeat(53)).is_none());
    let long = service_name_problem(&"s".repeat(54)).unwrap();
    assert!(
        long.contains("54 characters") && long.contains("at most 53"),
        "{long}"
    );
    let dotted = service_name_problem("a.b").unwrap();
    assert!(dotted.contains("no dots"), "{dotted}");
}

#[test]
fn shorten_keeps_short_names_and_hashes_long_ones() {
    assert_eq!(shorten("abc", 63), "abc");
    let long = "a".repeat(70);
    let short = shorten(&long, 63);
    assert_eq!(short.len(), 63);
    assert!(short.starts_with("aaaa"));
    assert_ne!(short, shorten(&"a".repeat(71), 63));
    // A cut that ends in '-' drops it, so the result stays a valid name.
    let dashed = format!("{}-{}", "b".repeat(51), "c".repeat(20));
    let short = shorten(&dashed, 63);
    assert!(!short.contains("--"), "{short}");
    assert!(is_dns_label(&short), "{short}");
}

#[test]
fn the_rules_are_creation_only_and_say_why() {
    let rules =
        serde_json::to_value([cluster_name_length_rule(), cluster_name_characters_rule()]).unwrap();
    for r in rules.as_array().unwrap() {
        assert_eq!(r["optionalOldSelf"], true);
        assert!(
            r["rule"]
                .as_str()
                .unwrap()
                .starts_with("oldSelf.hasValue() || ")
        );
    }
    assert_eq!(rules[0]["message"], CLUSTER_NAME_LENGTH);
    assert!(
        rules[1]["rule"]
            .as_str()
            .unwrap()
            .contains(DNS_LABEL_PATTERN)
    );
}

proptest::proptest! {
    /// Names at and around the length limits: every (cluster, service)
    /// pair gets a release name of its own, at most 63 characters, a
    /// valid label value; a name that fits is kept as it is, and a
    /// shortened one (two dots, then the hash) never equals one that
    /// fits (one dot). Pairs that differ only past the cut still differ.
    #[test]
    fn shortened_release_names_stay_apart(
        cluster in "[a-z0-9]([a-z0-9-]{0,51}[a-z0-9])?",
        service in "[a-z0-9]([a-z0-9-]{0,51}[a-z0-9])?",
        tail in "[a-z0-9]{1,8}",
    ) {
        let pairs = [
            (cluster.clone(), service.clone()),
            (cluster.clone(), format!("{}{tail}", &service[..service.len().min(45)])),
            (format!("{}{tail}", &cluster[..cluster.len().min(45)]), service.clone()),
            (cluster.clone(), format!("{}-{tail}", &service[..service.len().min(44)])),
        ];
        let mut seen = std::collections::BTreeMap::new();
        for (c, s) in &pairs {
            let name = service_release_name(c, s);
            proptest::prop_assert!(name.len() <= MAX_LABEL_VALUE, "{name}");
            proptest::prop_assert!(
                name.split('.').all(|p| p.is_empty() || is_dns_label(p)),
                "{name}"
            );
            let full = format!("{c}.{s}");
            if full.len() <= MAX_LABEL_VALUE {
                proptest::prop_assert_eq!(&name, &full);
            } else {
                proptest::prop_assert_eq!(name.matches('.').count(), 2, "{}", name);
            }
            if let Some(other) = seen.insert(name.clone(), (c.clone(), s.clone())) {
                proptest::prop_assert_eq!(&other, &(c.clone(), s.clone()), "{} collides", name);
            }
        }
    }
}

#[test]
fn service_release_names_keep_clusters_and_services_apart() {
    // The collision of the old scheme: service ingress of x, cluster x-ingress.
    assert_eq!(service_release_name("x", "ingress"), "x.ingress");
    assert_ne!(service_release_name("x", "ingress"), "x-ingress");
    assert_ne!(
        service_release_name("x", "a-b"),
        service_release_name("x-a", "b")
    );
    // 63 characters fit as they are; 64 take the short form.
    let (c, s) = ("c".repeat(31), "s".repeat(31));
    assert_eq!(service_release_name(&c, &s), format!("{c}.{s}"));
    let long = service_release_name(&c, &"s".repeat(32));
    assert_eq!(long.len(), 63);
    assert_eq!(long.matches('.').count(), 2, "{long}");
    // Both long: the cluster keeps 25 characters, the service 26.
    assert!(
        long.starts_with(&format!("{}.{}.", &c[..25], "s".repeat(26))),
        "{long}"
    );
    // A short service leaves the rest to the cluster, and the other way round.
    let short_service = service_release_name(&"c".repeat(53), "ingress-long");
    assert!(short_service.starts_with(&format!("{}.ingress-long.", "c".repeat(39))));
    let short_cluster = service_release_name("x", &"s".repeat(63));
    assert!(short_cluster.starts_with(&format!("x.{}.", "s".repeat(50))));
    // The short form is deterministic, and documented: a cluster of 53
    // and a service of 53 keep 25 and 26 characters before the hash.
    let (c, s) = ("a".repeat(53), "b".repeat(53));
    let name = service_release_name(&c, &s);
    assert_eq!(name, service_release_name(&c, &s));
    assert_eq!(
        name,
        format!(
            "{}.{}.{}",
            "a".repeat(25),
            "b".repeat(26),
            short_hash(&format!("{c}.{s}"))
        )
    );
}

#[test]
fn long_template_names_give_valid_source_names_and_labels() {
    let t = "t".repeat(253);
    assert_eq!(
        source_name(TemplateKind::Service, "ingress"),
        "svctmpl-ingress"
    );
    assert_eq!(
        template_label(TemplateKind::Service, "ingress"),
        "svctmpl.ingress"
    );
    assert!(source_name(TemplateKind::Cluster, &t).len() <= 253);
    assert!(template_label(TemplateKind::Cluster, &t).len() <= 63);
    assert_ne!(
        source_name(TemplateKind::Cluster, &t),
        source_name(TemplateKind::Cluster, &t[1..])
    );
}

mod properties {
    use super::super::{
        MAX_CLUSTER_NAME, MAX_LABEL_VALUE, MAX_SERVICE_NAME, is_dns_label, service_release_name,
    };
    use proptest::prelude::*;

    /// A valid cluster or service name: a DNS label of 1 to `max`.
    fn label(max: usize) -> impl Strategy<Value = String> {
        proptest::string::string_regex(&format!("[a-z0-9]([-a-z0-9]{{0,{}}}[a-z0-9])?", max - 2))
            .unwrap()
    }

    /// A valid object name that is also a valid label value.
    fn valid_release_name(n: &str) -> bool {
        n.len() <= MAX_LABEL_VALUE && !n.is_empty() && n.split('.').all(is_dns_label)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn derived_names_are_valid_and_fit(
            c in label(MAX_CLUSTER_NAME),
            s in label(MAX_SERVICE_NAME),
        ) {
            let n = service_release_name(&c, &s);
            prop_assert!(valid_release_name(&n), "{n}");
            prop_assert!(n.starts_with(c.get(..1).unwrap_or_default()), "{n}");
            prop_assert!(n.contains('.'), "{n}");
            prop_assert!(n != c, "never a cluster's own release name");
        }

        #[test]
        fn distinct_pairs_never_share_a_name(
            a in (label(MAX_CLUSTER_NAME), label(MAX_SERVICE_NAME)),
            b in (label(MAX_CLUSTER_NAME), label(MAX_SERVICE_NAME)),
        ) {
            prop_assume!(a != b);
            prop_assert_ne!(
                service_release_name(&a.0, &a.1),
                service_release_name(&b.0, &b.1)
            );
        }

        /// Pairs made to look alike: the same characters split in two
        /// places (`x`/`a-b` against `x-a`/`b`), and long names that share
        /// everything the short form keeps.
        #[test]
        fn look_alike_pairs_never_share_a_name(
            whole in label(100),
            cut1 in 1usize..99,
            cut2 in 1usize..99,
            tail in label(8),
        ) {
            let split = |at: usize| {
                let at = at.min(whole.len().saturating_sub(1)).max(1);
                (whole[..at].trim_end_matches('-').to_string(),
                 whole[at..].trim_start_matches('-').to_string())
            };
            let (a, b) = (split(cut1), split(cut2));
            let usable = |p: &(String, String)| {
                is_dns_label(&p.0) && is_dns_label(&p.1)
                    && p.0.len() <= MAX_CLUSTER_NAME && p.1.len() <= MAX_SERVICE_NAME
            };
            if usable(&a) && usable(&b) && a != b {
                prop_assert_ne!(
                    service_release_name(&a.0, &a.1),
                    service_release_name(&b.0, &b.1)
                );
            }
            // Same first 51 characters, different ends.
            let c = format!("{}{}", "c".repeat(45), tail);
            let c = &c[..c.len().min(MAX_CLUSTER_NAME)];
            let s1 = format!("{}a", "s".repeat(50));
            let s2 = format!("{}b", "s".repeat(50));
            if is_dns_label(c) {
                prop_assert_ne!(service_release_name(c, &s1), service_release_name(c, &s2));
            }
        }
    }
}
