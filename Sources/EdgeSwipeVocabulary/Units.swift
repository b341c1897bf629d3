/// A distance on the physical surface of a device.
///
/// Distances are kept in a type of their own because touch code mixes three spaces (device units, millimetres,
/// and fractions of an axis) and any of them compiles where a bare `Double` is expected.
public struct Millimeters: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var value: Double
    @inlinable public init(_ value: Double) { self.value = value }
    public static let zero = Millimeters(0)
    public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
    public static func + (a: Self, b: Self) -> Self { Self(a.value + b.value) }
    public static func - (a: Self, b: Self) -> Self { Self(a.value - b.value) }
    public var description: String { "\(value) mm" }
}

/// A speed on the physical surface of a device.
public struct MillimetersPerSecond: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var value: Double
    @inlinable public init(_ value: Double) { self.value = value }
    public static let zero = MillimetersPerSecond(0)
    public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
    public var description: String { "\(value) mm/s" }
}

/// A span of monotonic time, in microseconds (the resolution of evdev and libinput timestamps).
public struct Microseconds: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var value: Int64
    @inlinable public init(_ value: Int64) { self.value = value }
    public static let zero = Microseconds(0)
    public static func milliseconds(_ ms: Int64) -> Self { Self(ms * 1000) }
    public static func seconds(_ s: Double) -> Self { Self(Int64((s * 1_000_000).rounded())) }
    public var seconds: Double { Double(value) / 1_000_000 }
    public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
    public static func + (a: Self, b: Self) -> Self { Self(a.value + b.value) }
    public static func - (a: Self, b: Self) -> Self { Self(a.value - b.value) }
    public var description: String { "\(value) us" }
}

/// A point on the monotonic clock (`CLOCK_MONOTONIC`), in microseconds.
///
/// The core never reads a clock: every instant is handed in by the caller, so that a recording replays to the
/// same bytes every time and tests never sleep.
public struct MonotonicInstant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public var microseconds: UInt64
    @inlinable public init(microseconds: UInt64) { self.microseconds = microseconds }
    public static let zero = MonotonicInstant(microseconds: 0)
    public static func < (a: Self, b: Self) -> Bool { a.microseconds < b.microseconds }

    /// The instant `span` later; a negative span never moves before zero, a large one saturates at the end of
    /// time rather than wrap around to its beginning.
    public func advanced(by span: Microseconds) -> Self {
        if span.value >= 0 {
            let (sum, overflow) = microseconds.addingReportingOverflow(UInt64(span.value))
            return Self(microseconds: overflow ? .max : sum)
        }
        // `magnitude`, not `-value`: the negation of Int64.min traps.
        let back = span.value.magnitude
        return Self(microseconds: back > microseconds ? 0 : microseconds - back)
    }
    public static func + (a: Self, b: Microseconds) -> Self { a.advanced(by: b) }
    /// The span from `b` to `a`, saturating at ±`Int64.max` microseconds: instants a stream hands a client may lie
    /// further apart than an `Int64` reaches (a run-out that starts at 2^64 - 1), and must not trap.
    public static func - (a: Self, b: Self) -> Microseconds {
        a >= b
            ? Microseconds(Int64(clamping: a.microseconds - b.microseconds))
            : Microseconds(-Int64(clamping: b.microseconds - a.microseconds))
    }
    public var description: String { "\(microseconds) us" }
}

/// How far a transition has run: UIKit's `percentComplete`, where 0 is where it starts and 1 where it ends.
///
/// The name is UIKit's (`UIPercentDrivenInteractiveTransition.update(_:)` takes a "percent" from 0 to 1), and the
/// value is that fraction, not a count of hundredths: `Percent(0.5)` is half way, and the wire's `"percent"`
/// fields carry the same number. A finger's translation, a spring or a projection may take it past either end;
/// ``clamped`` brings it back, and a transition's own percent is always clamped.
public struct Percent: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The fraction of the transition: 0 at its start, 1 at its end.
    public var value: Double
    @inlinable public init(_ value: Double) { self.value = value }
    /// Where every transition starts, and where a cancelled one ends.
    public static let zero = Percent(0)
    /// Where a completed transition ends.
    public static let complete = Percent(1)

    /// The percent moved into 0...1. A NaN becomes 0.
    @inlinable public var clamped: Percent { Percent(min(1, max(0, value))) }

    @inlinable public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
    @inlinable public static func + (a: Self, b: Self) -> Self { Self(a.value + b.value) }
    @inlinable public static func - (a: Self, b: Self) -> Self { Self(a.value - b.value) }
    public var description: String { "\(value)" }

    /// Encoded as the bare number, as on the wire.
    public init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// How fast a transition's percent changes: fractions of the transition per second (`1` runs it all in a second).
///
/// The release velocity of a gesture, the velocity a run-out starts with, and the flick threshold below which a
/// release counts as a finger at rest are all in this unit; a finger's own speed on the surface is
/// ``MillimetersPerSecond``.
public struct PercentPerSecond: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Fractions of the transition per second.
    public var value: Double
    @inlinable public init(_ value: Double) { self.value = value }
    public static let zero = PercentPerSecond(0)

    /// The speed, whichever way it goes.
    @inlinable public var magnitude: PercentPerSecond { PercentPerSecond(abs(value)) }
    /// Whether it is a number (not NaN or infinite): a velocity fitted over too few samples may not be.
    @inlinable public var isFinite: Bool { value.isFinite }

    /// How far this velocity carries the percent in `seconds`.
    @inlinable public func distance(in seconds: Double) -> Percent { Percent(value * seconds) }

    @inlinable public static func < (a: Self, b: Self) -> Bool { a.value < b.value }
    public var description: String { "\(value)/s" }

    /// Encoded as the bare number, as on the wire.
    public init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// Where a transition is and how fast it is moving: what a finger tells an interactive transition at each step
/// (UIKit's `update(_:)` with the pan's velocity), and what a release decision judges.
public struct Progress: Hashable, Sendable {
    /// How far the transition has run.
    public var percent: Percent
    /// How fast it is running, toward completion when positive.
    public var velocity: PercentPerSecond
    @inlinable public init(percent: Percent, velocity: PercentPerSecond) {
        self.percent = percent
        self.velocity = velocity
    }
    /// At the start, at rest.
    public static let zero = Progress(percent: .zero, velocity: .zero)
}

/// A position in the unit square of a device, as the user sees it: (0, 0) is the top-left corner.
public struct NormalizedPoint: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    @inlinable public init(x: Double, y: Double) { self.x = x; self.y = y }

    /// The point moved into 0...1 on both axes; NaN becomes 0. Hardware reports values beyond its advertised
    /// range, so coordinates are clamped here and never trusted.
    public var clamped: NormalizedPoint {
        NormalizedPoint(x: Self.clampUnit(x), y: Self.clampUnit(y))
    }
    /// A coordinate moved into 0...1; NaN becomes 0 (an axis fraction is clamped the same way).
    @inlinable public static func clampUnit(_ v: Double) -> Double { v.isNaN ? 0 : min(1, max(0, v)) }
}

/// A displacement (or, per second, a velocity) in the unit square of a device as the user sees it: fractions of
/// the width and of the height.
public struct NormalizedVector: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    @inlinable public init(x: Double, y: Double) { self.x = x; self.y = y }
    public static let zero = NormalizedVector(x: 0, y: 0)
}

/// A 2D vector whose components are millimetres.
public struct MillimeterVector: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    @inlinable public init(x: Double, y: Double) { self.x = x; self.y = y }
    public static let zero = MillimeterVector(x: 0, y: 0)
    public var length: Millimeters { Millimeters((x * x + y * y).squareRoot()) }
}

/// A physical size in millimetres.
public struct MillimeterSize: Hashable, Sendable, Codable {
    public var width: Millimeters
    public var height: Millimeters
    public init(width: Millimeters, height: Millimeters) { self.width = width; self.height = height }
    public init(widthMM: Double, heightMM: Double) { self.init(width: Millimeters(widthMM), height: Millimeters(heightMM)) }
    /// Whether both sides are positive finite lengths, so that a fraction of them means something.
    public var isUsable: Bool {
        width.value.isFinite && height.value.isFinite && width.value > 0 && height.value > 0
    }
    /// Width and height swapped, for a quarter turn.
    public var transposed: MillimeterSize { MillimeterSize(width: height, height: width) }
}
