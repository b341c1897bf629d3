// Shared by the targets that read their input as a program rather than as a file: a cursor over libFuzzer's
// bytes that never fails (past the end every read is 0), so that every input means something and a mutation of
// one byte changes one choice.
import EdgeSwipeCore

struct FuzzBytes {
    let base: UnsafePointer<UInt8>
    let count: Int
    var offset = 0

    init(_ base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    var isEmpty: Bool { offset >= count }

    mutating func u8() -> UInt8 {
        guard offset < count else { return 0 }
        defer { offset += 1 }
        return base[offset]
    }
    mutating func u16() -> UInt16 { UInt16(u8()) | UInt16(u8()) << 8 }
    mutating func i32() -> Int32 { Int32(bitPattern: UInt32(u16()) | UInt32(u16()) << 16) }
    mutating func bool() -> Bool { u8() & 1 == 1 }

    /// One of `choices` (which must not be empty).
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(u8()) % choices.count] }

    /// A fraction in 0...1 in 1/255 steps.
    mutating func unit() -> Double { Double(u8()) / 255 }

    /// The next `n` bytes (fewer at the end of the input).
    mutating func bytes(_ n: Int) -> [UInt8] {
        let n = max(0, min(n, count - offset))
        defer { offset += n }
        return Array(UnsafeBufferPointer(start: base + offset, count: n))
    }

    /// Mostly small values near an axis, sometimes anything at all.
    mutating func coordinate(_ axis: AxisRange) -> Int32 {
        let mode = u8()
        switch mode % 8 {
        case 0: return i32()
        case 1: return axis.minimum &- Int32(u8())
        case 2: return axis.maximum &+ Int32(u8())
        default:
            let span = Int64(axis.maximum) - Int64(axis.minimum)
            guard span > 0 else { return axis.minimum }
            return Int32(Int64(axis.minimum) + Int64(u16()) % (span + 1))
        }
    }
}
