//! Work over many items shared between the machine's cores, the answers in
//! the items' order: a fleet's clusters are planned alike and apart (no
//! cluster's plan reads another's), and ten thousand of them are worth
//! more than one core.
//!
//! Still pure: the threads are scoped to the call and see only what it
//! borrows, and the answer is the same whatever the number of cores.

use std::num::NonZeroUsize;
use std::thread;

/// Fewer items than this to a thread are not worth the thread's start:
/// a console's review of a handful of clusters stays on its own thread.
pub const MIN_PER_THREAD: usize = 128;

/// The threads worth starting here: one a core this process may use.
pub fn cores() -> usize {
    thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// `f` over `items` in consecutive chunks, a chunk to each of at most
/// `threads` threads (this one included), and the answers of the chunks
/// one after another, in the items' order. `f` gets a chunk and gives its
/// answers for it.
pub fn map_chunks<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    f: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    let threads = threads.min(items.len() / MIN_PER_THREAD).max(1);
    if threads == 1 {
        return f(items);
    }
    let size = items.len().div_ceil(threads);
    let (first, rest) = items.split_at(size);
    let f = &f;
    thread::scope(|scope| {
        let others: Vec<_> = rest
            .chunks(size)
            .map(|chunk| scope.spawn(move || f(chunk)))
            .collect();
        // This thread takes the first chunk rather than wait idle.
        let mut out = f(first);
        for other in others {
            match other.join() {
                Ok(answers) => out.extend(answers),
                // As if `f` had panicked on this thread.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests;
