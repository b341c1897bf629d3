/// The actions one event makes a state machine take, in order.
///
/// The first four live inline, so that a step of a machine never allocates: neither of EdgeSwipe's machines
/// takes more than four actions for one event (their tables, in the test files of each machine, check every
/// pair), and should one ever take more, the rest go to an overflow array rather than being lost.
public struct ActionList<Element: Hashable & Sendable>: RandomAccessCollection, Hashable, Sendable {
    private var first: Element?
    private var second: Element?
    private var third: Element?
    private var fourth: Element?
    private var overflow: [Element] = []
    public private(set) var count = 0

    public init() {}

    public init(_ elements: [Element]) {
        for e in elements { append(e) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "ActionList index \(position) out of 0..<\(count)")
        // The slots below `count` are always filled: `append` fills them in order.
        switch position {
        case 0: return first.unsafelyUnwrapped
        case 1: return second.unsafelyUnwrapped
        case 2: return third.unsafelyUnwrapped
        case 3: return fourth.unsafelyUnwrapped
        default: return overflow[position - 4]
        }
    }

    public mutating func append(_ element: Element) {
        switch count {
        case 0: first = element
        case 1: second = element
        case 2: third = element
        case 3: fourth = element
        default: overflow.append(element)
        }
        count += 1
    }

    public mutating func append(contentsOf other: ActionList<Element>) {
        for e in other { append(e) }
    }
}
