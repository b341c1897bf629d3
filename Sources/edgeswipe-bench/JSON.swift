import EdgeSwipeProtocol

/// A JSON value whose objects keep their keys in the order they were added, so the report reads top-down.
indirect enum JSON {
    case null
    case bool(Bool)
    case number(Double)
    case integer(Int)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    static func num(_ v: Double?, digits: Int = 3) -> JSON {
        guard let v, v.isFinite else { return .null }
        let scale = pow10(digits)
        return .number((v * scale).rounded() / scale)
    }

    private static func pow10(_ n: Int) -> Double {
        var r = 1.0
        for _ in 0..<n { r *= 10 }
        return r
    }

    func render(indent: Int = 0, pretty: Bool = true) -> String {
        let pad = pretty ? String(repeating: "  ", count: indent + 1) : ""
        let closePad = pretty ? String(repeating: "  ", count: indent) : ""
        let nl = pretty ? "\n" : ""
        let colon = pretty ? ": " : ":"
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .number(let d):
            if d == d.rounded() && abs(d) < 1e15 { return String(Int64(d)) }
            return String(d)
        case .string(let s): return Self.quote(s)
        case .array(let items):
            if items.isEmpty { return "[]" }
            // Arrays of scalars stay on one line.
            if items.allSatisfy({ if case .object = $0 { return false } else if case .array = $0 { return false } else { return true } }) {
                return "[" + items.map { $0.render(pretty: false) }.joined(separator: ", ") + "]"
            }
            return "[" + nl + items.map { pad + $0.render(indent: indent + 1, pretty: pretty) }.joined(separator: "," + nl) + nl + closePad + "]"
        case .object(let fields):
            if fields.isEmpty { return "{}" }
            return "{" + nl + fields.map { pad + Self.quote($0.0) + colon + $0.1.render(indent: indent + 1, pretty: pretty) }
                .joined(separator: "," + nl) + nl + closePad + "}"
        }
    }

    /// A JSON string, escaped as the protocol's writer escapes it.
    static func quote(_ s: String) -> String {
        var writer = JSONWriter(capacity: s.utf8.count + 2)
        writer.string(s)
        return writer.withBytes { String(decoding: $0, as: UTF8.self) }
    }
}
