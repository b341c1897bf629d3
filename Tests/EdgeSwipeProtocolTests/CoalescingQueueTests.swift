import EdgeSwipeCore
import EdgeSwipeProtocol
import Testing

/// The queue the server's outbox and the web bridge's tabs share: what a slow reader is delivered, and what it holds.
@Suite("Coalescing queue")
struct CoalescingQueueTests {
    struct Item: CoalescingElement, Equatable {
        var name: String
        var byteCount = 10
        var coalescingKey: CoalescingKey?
    }

    static func transition(_ name: String, _ id: UInt64) -> Item {
        Item(name: name, coalescingKey: .transition(TransitionID(id)))
    }
    static func gesture(_ name: String, device: UInt32) -> Item {
        Item(name: name, coalescingKey: .gesture(DeviceID(device)))
    }
    static func essential(_ name: String) -> Item { Item(name: name) }

    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var appended: [Item]
        var delivered: [String]
        var coalesced: Int
    }

    @Test(arguments: [
        Case(
            testDescription: "one transition's progress: only the latest",
            appended: [transition("p1", 1), transition("p2", 1), transition("p3", 1)], delivered: ["p3"], coalesced: 2),
        Case(
            testDescription: "lines without a key all stay, in order",
            appended: [essential("began"), essential("lifecycle"), essential("completed")],
            delivered: ["began", "lifecycle", "completed"], coalesced: 0),
        Case(
            testDescription: "the newest goes to the back: a subsequence of the stream, in order",
            appended: [transition("p1", 1), essential("lifecycle"), transition("p2", 1)],
            delivered: ["lifecycle", "p2"], coalesced: 1),
        Case(
            testDescription: "keys do not mix: each transition, each device's gesture",
            appended: [transition("t1", 1), gesture("g1", device: 1), transition("t2", 2), gesture("g2", device: 1)],
            delivered: ["t1", "t2", "g2"], coalesced: 1),
    ])
    func delivers(_ c: Case) {
        var queue = CoalescingQueue<Item>()
        for item in c.appended { queue.append(item) }
        #expect(queue.liveCount == c.delivered.count)
        #expect(queue.liveBytes == 10 * c.delivered.count)
        var out: [Item] = []
        queue.take(maxBytes: .max, into: &out)
        #expect(out.map(\.name) == c.delivered)
        #expect(queue.coalesced == c.coalesced)
        #expect(queue.liveCount == 0 && queue.slotCount == 0 && queue.heldBytes == 0)
    }

    @Test("a line taken is gone: the next one with its key supersedes nothing")
    func takenIsNotSuperseded() {
        var queue = CoalescingQueue<Item>()
        queue.append(Self.transition("p1", 1))
        var out: [Item] = []
        queue.take(maxBytes: .max, into: &out)
        queue.append(Self.transition("p2", 1))
        queue.take(maxBytes: .max, into: &out)
        #expect(out.map(\.name) == ["p1", "p2"])
        #expect(queue.coalesced == 0)
    }

    @Test("take moves whole lines, oldest first, until it has moved at least maxBytes")
    func takeByBytes() {
        var queue = CoalescingQueue<Item>()
        for i in 0..<5 { queue.append(Self.essential("l\(i)")) }
        var out: [Item] = []
        queue.take(maxBytes: 25, into: &out)
        #expect(out.map(\.name) == ["l0", "l1", "l2"])
        #expect(queue.liveCount == 2)
        queue.take(maxBytes: 25, into: &out)
        #expect(out.map(\.name) == ["l0", "l1", "l2", "l3", "l4"])
    }

    @Test("a reader that reads nothing while progress streams holds its live backlog, not everything it missed")
    func compaction() {
        var queue = CoalescingQueue<Item>()
        queue.append(Self.essential("hello"))
        for i in 0..<50_000 {
            queue.append(Self.transition("p\(i)", 1))
            queue.compactIfSparse()
        }
        #expect(queue.liveCount == 2)
        #expect(queue.slotCount <= 2 * CoalescingQueue<Item>.compactionFloor, "\(queue.slotCount) slots for 2 live lines")
        #expect(queue.coalesced == 49_999)
        var out: [Item] = []
        queue.take(maxBytes: .max, into: &out)
        #expect(out.map(\.name) == ["hello", "p49999"], "compaction keeps the order and the latest")
    }

    @Test("the bound counts live lines, their bytes and, at slotBytes each, the slots (tombstones too)")
    func bounds() {
        var queue = CoalescingQueue<Item>(slotBytes: 8)
        let limits = OutboxLimits(messages: 3, bytes: 3 * 18)
        for i in 0..<3 { queue.append(Self.essential("l\(i)")) }
        #expect(queue.heldBytes == 3 * 18)
        #expect(!queue.exceeds(limits))
        queue.append(Self.essential("l3"))
        #expect(queue.exceeds(limits), "a fourth line")

        var progress = CoalescingQueue<Item>(slotBytes: 8)
        progress.append(Self.transition("p1", 1))
        progress.append(Self.transition("p2", 1))
        #expect(progress.liveCount == 1 && progress.tombstones == 1)
        #expect(progress.heldBytes == 10 + 2 * 8, "the superseded slot still holds memory until compaction")
        progress.removeAll()
        #expect(progress.heldBytes == 0 && progress.slotCount == 0)
    }

    @Test("a received line's key is the one the server sent it with", arguments: [
        (#"{"type":"transition","seq":1,"time_us":1,"id":7,"operation":"push","container":"app","from":"a","to":"b","direction":"forward","phase":"changed","percent":0.5,"velocity":0,"interactive":true,"progress":true,"geometry":{"from":{"scene":"a","frame":{"x":0,"y":0,"width":1,"height":1},"alpha":1,"z_index":0,"on_stage":true},"to":{"scene":"b","frame":{"x":1,"y":0,"width":1,"height":1},"alpha":1,"z_index":1,"on_stage":true}}}"#,
         CoalescingKey?.some(.transition(TransitionID(7)))),
        (#"{"type":"transition","seq":1,"time_us":1,"id":7,"operation":"push","container":"app","from":"a","to":"b","direction":"forward","phase":"began","percent":0,"velocity":0,"interactive":true,"progress":false,"geometry":{"from":{"scene":"a","frame":{"x":0,"y":0,"width":1,"height":1},"alpha":1,"z_index":0,"on_stage":true},"to":{"scene":"b","frame":{"x":1,"y":0,"width":1,"height":1},"alpha":1,"z_index":1,"on_stage":true}}}"#,
         nil),
        (#"{"type":"lifecycle","seq":1,"time_us":1,"transition":1,"container":"app","scene":"a","event":"will-appear"}"#, nil),
    ])
    func receivedKey(_ line: String, _ key: CoalescingKey?) throws {
        #expect(try ServerMessage(line: Array(line.utf8)).coalescingKey == key)
    }
}
