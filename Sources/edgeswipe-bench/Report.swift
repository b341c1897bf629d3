import EdgeSwipeProtocol

// The report is a tree of the protocol's `JSONValue`s, written by its `JSONWriter` (keys sorted): the package's one
// JSON stack. docs/PERFORMANCE.md explains each field.

extension JSONValue {
    /// An object of `fields` (a later field of the same name replaces an earlier one).
    static func fields(_ fields: [(String, JSONValue)]) -> JSONValue {
        .object(Dictionary(fields, uniquingKeysWith: { _, later in later }))
    }

    static func integer(_ value: Int) -> JSONValue { .integer(Int64(value)) }

    /// `value` rounded to `digits` decimals; `null` when there is none, or it is not finite.
    static func num(_ value: Double?, digits: Int = 3) -> JSONValue {
        guard let value, value.isFinite else { return .null }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        return .number((value * scale).rounded() / scale)
    }

    /// The value as JSON text: indented, or on one line.
    func rendered(pretty: Bool = true) -> String {
        var writer = JSONWriter(capacity: 4096)
        writer.value(self, pretty: pretty)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
