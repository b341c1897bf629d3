/// The actions one event makes a state machine take, in order.
///
/// The first four live inline, so that a step of a machine never allocates: neither of EdgeSwipe's machines
/// takes more than four actions for one event (their tables, in the test files of each machine, check every
/// pair), and should one ever take more, the rest go to an overflow array rather than being lost.
///
/// It lives below the core (the session's rule matcher is a machine too) and is `@inlinable` throughout, so that the
/// core's machines still get it specialized and inline across the module line: a step stays allocation-free.
public struct ActionList<Element: Hashable & Sendable>: RandomAccessCollection, Hashable, Sendable {
    @usableFromInline var first: Element?
    @usableFromInline var second: Element?
    @usableFromInline var third: Element?
    @usableFromInline var fourth: Element?
    @usableFromInline var overflow: [Element] = []
    @usableFromInline var storedCount = 0
    @inlinable public var count: Int { storedCount }

    @inlinable public init() {}

    @inlinable public init(_ elements: [Element]) {
        for e in elements { append(e) }
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable public subscript(position: Int) -> Element {
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

    @inlinable public mutating func append(_ element: Element) {
        switch storedCount {
        case 0: first = element
        case 1: second = element
        case 2: third = element
        case 3: fourth = element
        default: overflow.append(element)
        }
        storedCount += 1
    }

    @inlinable public mutating func append(contentsOf other: ActionList<Element>) {
        for e in other { append(e) }
    }
}
