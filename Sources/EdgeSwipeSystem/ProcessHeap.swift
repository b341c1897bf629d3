import CSystemCalls

/// The C library's heap, for the daemon to hand memory back to the system after a burst of clients.
///
/// glibc keeps freed memory in its arenas for reuse. Memory freed on the threads that serve clients sits in
/// arenas that glibc shrinks only from their top, so after a burst of connections (or of stalled readers that were
/// cut off) most of it stays resident: measured, 25 MB of free chunks in one arena, and a resident size 25 MB
/// over its baseline, until `malloc_trim(0)` returned it (docs/TESTING.md, "Memory"). `malloc_trim` and
/// `mallinfo2` are glibc's and not in Swift's Glibc module, so they come through the C module, which only this
/// module imports (CSystemCalls).
public enum ProcessHeap {
    /// Bytes the heap holds free (`mallinfo2().fordblks`, every arena).
    public static var freeBytes: Int { Int(mallinfo2().fordblks) }

    /// Returns the free memory of every arena to the system (`malloc_trim(0)`); the free bytes before.
    @discardableResult
    public static func releaseFreeMemory() -> Int {
        let free = freeBytes
        _ = malloc_trim(0)
        return free
    }
}
