import FoundationEssentials

extension ServerMessage {
    /// Decodes one server line (with or without its newline) through the Codable types.
    public init(line: [UInt8]) throws(MessageDecodingError) {
        do {
            self = try JSONDecoder().decode(ServerMessage.self, from: Data(line))
        } catch let error as DecodingError {
            throw MessageDecodingError(reason: Self.describe(error))
        } catch {
            throw MessageDecodingError(reason: "\(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let p = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return p.isEmpty ? "" : "at \(p): "
        }
        switch error {
        case .typeMismatch(_, let c): return path(c) + c.debugDescription
        case .valueNotFound(_, let c): return path(c) + c.debugDescription
        case .keyNotFound(let key, let c): return path(c) + "field \"\(key.stringValue)\" is missing"
        case .dataCorrupted(let c): return path(c) + c.debugDescription
        @unknown default: return "\(error)"
        }
    }
}

/// A server line that does not decode into ``ServerMessage``.
public struct MessageDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}
