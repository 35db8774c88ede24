//! The order a cluster's services are installed in. A service's `dependsOn`
//! names services of the same cluster that must be Installed before it is
//! installed; everything else keeps the order it is written in.
//!
//! A name that is not a service of the cluster, or services that depend on
//! each other in a cycle, can never be satisfied: [`dependency_problems`]
//! says which and why, so that a template is refused before any cluster is
//! made from it, and a cluster's own entries are reported on that cluster.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// One service and the names it depends on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node<'a> {
    pub name: &'a str,
    pub depends_on: &'a [String],
}

/// The indices of `nodes` in install order: a service comes after the
/// services it depends on, and otherwise in the order given (the earliest
/// one that can go goes first). Names that are not among `nodes` are
/// ignored here (see [`dependency_problems`]); services caught in a cycle
/// come last, in the order given.
pub fn install_order(nodes: &[Node<'_>]) -> Vec<usize> {
    let (mut order, placed) = placeable(nodes, &by_name(nodes));
    order.extend((0..nodes.len()).filter(|&i| !placed[i]));
    order
}

/// The services that can be placed, in install order, and which those are:
/// Kahn's algorithm, taking the earliest ready service first, so that it
/// stays linear-logarithmic however many services a hostile spec lists.
fn placeable(nodes: &[Node<'_>], index: &BTreeMap<&str, usize>) -> (Vec<usize>, Vec<bool>) {
    let mut waiting_on = vec![0usize; nodes.len()];
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        let mut known: Vec<usize> = node
            .depends_on
            .iter()
            .filter_map(|d| index.get(d.as_str()).copied())
            .filter(|&j| j != i)
            .collect();
        known.sort_unstable();
        known.dedup();
        waiting_on[i] = known.len();
        for j in known {
            dependents[j].push(i);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..nodes.len())
        .filter(|&i| waiting_on[i] == 0)
        .map(Reverse)
        .collect();
    let mut placed = vec![false; nodes.len()];
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(Reverse(i)) = ready.pop() {
        placed[i] = true;
        order.push(i);
        for &k in &dependents[i] {
            waiting_on[k] -= 1;
            if waiting_on[k] == 0 {
                ready.push(Reverse(k));
            }
        }
    }
    (order, placed)
}

/// What keeps each service from ever being installed, by index into
/// `nodes`: a name that is not a service here (`whose` names where the
/// services come from, as in "this template"), itself, or a cycle.
pub fn dependency_problems(nodes: &[Node<'_>], whose: &str) -> Vec<(usize, String)> {
    let index = by_name(nodes);
    // Only a service that cannot be placed can be in a cycle.
    let (_, placed) = placeable(nodes, &index);
    let mut problems = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        if let Some(missing) = node
            .depends_on
            .iter()
            .find(|d| !index.contains_key(d.as_str()))
        {
            problems.push((
                i,
                format!(
                    "{} depends on {missing}, which is not a service of {whose}",
                    node.name
                ),
            ));
        } else if node.depends_on.iter().any(|d| d == node.name) {
            problems.push((i, format!("{} depends on itself", node.name)));
        } else if let Some(cycle) = (!placed[i])
            .then(|| cycle_through(i, nodes, &index))
            .flatten()
        {
            let path: Vec<&str> = cycle.iter().map(|&j| nodes[j].name).collect();
            problems.push((
                i,
                format!(
                    "{} is part of a dependency cycle: {} → {}",
                    node.name,
                    path.join(" → "),
                    node.name
                ),
            ));
        }
    }
    problems
}

fn by_name<'a>(nodes: &[Node<'a>]) -> BTreeMap<&'a str, usize> {
    let mut index = BTreeMap::new();
    for (i, n) in nodes.iter().enumerate() {
        index.entry(n.name).or_insert(i);
    }
    index
}

/// A path of dependencies that leads from `start` back to it, if any
/// (depth first; each service is entered once, so this is linear in the
/// number of dependencies).
fn cycle_through(
    start: usize,
    nodes: &[Node<'_>],
    index: &BTreeMap<&str, usize>,
) -> Option<Vec<usize>> {
    let mut seen = vec![false; nodes.len()];
    let mut path = vec![start];
    let mut stack = vec![deps_of(start, nodes, index)];
    seen[start] = true;
    while let Some(next) = stack.last_mut().map(|deps| deps.pop()) {
        match next {
            Some(j) if j == start => return Some(path),
            Some(j) if !seen[j] => {
                seen[j] = true;
                path.push(j);
                stack.push(deps_of(j, nodes, index));
            }
            Some(_) => {}
            None => {
                stack.pop();
                path.pop();
            }
        }
    }
    None
}

/// The indices `i` depends on, last first (so that popping visits them in
/// the order written).
fn deps_of(i: usize, nodes: &[Node<'_>], index: &BTreeMap<&str, usize>) -> Vec<usize> {
    nodes[i]
        .depends_on
        .iter()
        .rev()
        .filter_map(|d| index.get(d.as_str()).copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deps(list: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        list.iter()
            .map(|(n, d)| (n.to_string(), d.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    fn nodes(owned: &[(String, Vec<String>)]) -> Vec<Node<'_>> {
        owned
            .iter()
            .map(|(name, depends_on)| Node { name, depends_on })
            .collect()
    }

    #[test]
    fn without_dependencies_the_written_order_stays() {
        let owned = deps(&[("a", &[]), ("b", &[]), ("c", &[])]);
        assert_eq!(install_order(&nodes(&owned)), vec![0, 1, 2]);
        assert!(dependency_problems(&nodes(&owned), "this template").is_empty());
    }

    #[test]
    fn a_service_comes_after_what_it_depends_on() {
        let owned = deps(&[
            ("ingress-nginx", &["cert-manager"]),
            ("monitoring", &[]),
            ("cert-manager", &[]),
        ]);
        // monitoring can go first: it waits for nothing; ingress-nginx only
        // once cert-manager is placed.
        assert_eq!(install_order(&nodes(&owned)), vec![1, 2, 0]);
    }

    #[test]
    fn chains_and_diamonds_are_ordered() {
        let owned = deps(&[
            ("app", &["db", "cache"]),
            ("db", &["storage"]),
            ("cache", &["storage"]),
            ("storage", &[]),
        ]);
        assert_eq!(install_order(&nodes(&owned)), vec![3, 1, 2, 0]);
        assert!(dependency_problems(&nodes(&owned), "this template").is_empty());
    }

    #[test]
    fn an_unknown_name_is_a_problem_and_does_not_block_the_order() {
        let owned = deps(&[("ingress-nginx", &["cert-manger"]), ("b", &[])]);
        assert_eq!(
            dependency_problems(&nodes(&owned), "this template"),
            vec![(
                0,
                "ingress-nginx depends on cert-manger, which is not a service of this template"
                    .to_string()
            )]
        );
        assert_eq!(install_order(&nodes(&owned)), vec![0, 1]);
    }

    #[test]
    fn a_cycle_names_its_path_for_each_member() {
        let owned = deps(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"]), ("d", &[])]);
        let problems = dependency_problems(&nodes(&owned), "this template");
        assert_eq!(
            problems,
            vec![
                (
                    0,
                    "a is part of a dependency cycle: a → b → c → a".to_string()
                ),
                (
                    1,
                    "b is part of a dependency cycle: b → c → a → b".to_string()
                ),
                (
                    2,
                    "c is part of a dependency cycle: c → a → b → c".to_string()
                ),
            ]
        );
        // d is free to go; the cycle comes last, in the written order.
        assert_eq!(install_order(&nodes(&owned)), vec![3, 0, 1, 2]);
    }

    #[test]
    fn a_service_that_depends_on_a_cycle_is_not_in_it() {
        let owned = deps(&[("a", &["b"]), ("b", &["a"]), ("c", &["a"])]);
        let problems = dependency_problems(&nodes(&owned), "this template");
        assert_eq!(problems.iter().map(|p| p.0).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(install_order(&nodes(&owned)), vec![0, 1, 2]);
    }

    #[test]
    fn depending_on_itself_is_a_problem() {
        let owned = deps(&[("a", &["a"])]);
        assert_eq!(
            dependency_problems(&nodes(&owned), "this cluster"),
            vec![(0, "a depends on itself".to_string())]
        );
        assert_eq!(install_order(&nodes(&owned)), vec![0]);
    }

    #[test]
    fn a_long_chain_is_ordered_without_blowing_up() {
        let owned: Vec<(String, Vec<String>)> = (0..200)
            .map(|i| {
                let deps = if i + 1 < 200 {
                    vec![format!("s{}", i + 1)]
                } else {
                    vec![]
                };
                (format!("s{i}"), deps)
            })
            .collect();
        let order = install_order(&nodes(&owned));
        assert_eq!(order.first(), Some(&199));
        assert_eq!(order.last(), Some(&0));
        assert!(dependency_problems(&nodes(&owned), "this template").is_empty());
    }
}
