use super::*;

#[test]
fn keys_sort_as_go_yaml_sorts_them() {
    assert_eq!(
        sorted_keys(vec!["a10", "a9", "b", "A", "1", "-", ""]),
        vec!["", "-", "1", "A", "a9", "a10", "b"]
    );
}
