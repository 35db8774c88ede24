use super::*;

/// Each item's answers tagged with the chunk that gave them.
fn answers(threads: usize, n: usize) -> Vec<(usize, usize)> {
    let items: Vec<usize> = (0..n).collect();
    map_chunks(threads, &items, |chunk| {
        let first = chunk.first().copied().unwrap_or_default();
        chunk.iter().flat_map(|&i| [(i, first); 2]).collect()
    })
}

#[test]
fn the_answers_come_in_the_items_order_whatever_the_threads() {
    for n in [
        0,
        1,
        MIN_PER_THREAD - 1,
        2 * MIN_PER_THREAD,
        5 * MIN_PER_THREAD + 3,
    ] {
        let alone = answers(1, n);
        let items: Vec<usize> = alone.iter().map(|(i, _)| *i).collect();
        let want: Vec<usize> = (0..n).flat_map(|i| [i; 2]).collect();
        assert_eq!(items, want, "{n}");
        for threads in [2, 3, 8] {
            let shared = answers(threads, n);
            let items: Vec<usize> = shared.iter().map(|(i, _)| *i).collect();
            assert_eq!(items, want, "{n} on {threads}");
        }
    }
}

#[test]
fn few_items_stay_on_one_thread_and_many_are_shared() {
    let chunks = |threads, n| {
        let mut firsts: Vec<usize> = answers(threads, n).into_iter().map(|(_, c)| c).collect();
        firsts.dedup();
        firsts
    };
    assert_eq!(chunks(8, MIN_PER_THREAD * 2 - 1), [0]);
    assert_eq!(chunks(8, MIN_PER_THREAD * 2), [0, MIN_PER_THREAD]);
    assert_eq!(chunks(3, 3000), [0, 1000, 2000]);
    assert_eq!(chunks(1, 3000), [0]);
}

#[test]
#[should_panic(expected = "item 1000")]
fn a_panic_on_another_thread_is_this_ones() {
    let items: Vec<usize> = (0..2000).collect();
    map_chunks(2, &items, |chunk| {
        assert!(!chunk.contains(&1000), "item 1000");
        chunk.to_vec()
    });
}
