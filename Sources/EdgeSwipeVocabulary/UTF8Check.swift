/// Where text that must be UTF-8 stops being it: a request line, a configuration file. Text read with invalid bytes
/// replaced would carry on with a name the sender never wrote, so both refuse it and say where.
public enum UTF8Check {
    /// The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629: no overlong
    /// forms, no surrogates, nothing past U+10FFFF), or `nil` when every byte does.
    public static func firstInvalidOffset(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            guard i + length <= n else { return i }
            let b1 = bytes[i + 1]
            guard b1 >= low && b1 <= high else { return i }
            for k in 2..<length where bytes[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }

    public static func firstInvalidOffset(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { firstInvalidOffset($0) }
    }
}

extension String {
    /// The longest prefix of whole characters that fits in `limit` UTF-8 bytes: how text from another program (an app
    /// id, a window's class) is bounded before it is kept or logged.
    public func prefix(utf8Bytes limit: Int) -> String {
        guard utf8.count > limit else { return self }
        var out = ""
        for c in self {
            guard out.utf8.count + c.utf8.count <= limit else { break }
            out.append(c)
        }
        return out
    }
}
