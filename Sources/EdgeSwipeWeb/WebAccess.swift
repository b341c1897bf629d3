/// Who may use the bridge: a random token, as Jupyter does, and the hosts and origins it answers to.
///
/// - The token is printed once, in the URL. The first page load with `?token=` sets an `HttpOnly`,
///   `SameSite=Strict` cookie and redirects to the bare URL, so the token does not linger in the address bar, the
///   history or a `Referer`; every later request (the module, the WebSocket) carries the cookie. Scripts may send
///   `Authorization: Bearer TOKEN` instead. Anything else gets 403 and no data.
/// - The `Host` header must name the bridge (a loopback name or the address it listens on), so that a page on
///   another site cannot reach it through DNS rebinding.
/// - A WebSocket's `Origin`, which browsers always send, must be the bridge's own origin, so that no other site
///   open in the same browser can read the stream with the user's cookie (cross-site WebSocket hijacking).
public struct WebAccess: Sendable {
    public let token: String
    public let port: Int
    /// Host names (without the port) the bridge answers to.
    public let hosts: Set<String>

    public init(token: String = WebAccess.randomToken(), port: Int, listenHost: String) {
        self.token = token
        self.port = port
        var hosts: Set<String> = ["127.0.0.1", "localhost", "[::1]"]
        hosts.insert(listenHost.contains(":") && !listenHost.hasPrefix("[") ? "[\(listenHost)]" : listenHost)
        hosts.remove("0.0.0.0")
        hosts.remove("[::]")
        self.hosts = hosts
    }

    /// 32 random bytes from the system's generator (`getrandom`), in hex.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        var out = ""
        for _ in 0..<4 {
            let word = generator.next() as UInt64
            let hex = String(word, radix: 16)
            out += String(repeating: "0", count: 16 - hex.count) + hex
        }
        return out
    }

    /// The variable a script sets to choose the token, so that it can print the URL before the bridge is up
    /// (scripts/quickstart does, while the bridge still builds). The environment, not an option: another user can
    /// read a command line, not this process's environment.
    public static let tokenVariable = "EDGESWIPE_WEB_TOKEN"

    /// Whether `token` is one the bridge accepts: 32 to 256 characters of `A-Z a-z 0-9 - _` (it travels in URLs,
    /// cookies and headers unescaped, and is hard to guess).
    public static func isAcceptable(token: String) -> Bool {
        (32...256).contains(token.utf8.count)
            && token.utf8.allSatisfy { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// The cookie's name: one per port, so two bridges on one machine do not overwrite each other's.
    public var cookieName: String { "edgeswipe-token-\(port)" }

    /// The `Set-Cookie` value that the first load answers with.
    public var setCookie: String { "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict" }

    /// Whether a `Host` header names this bridge.
    public func allowsHost(_ host: String?) -> Bool {
        guard let host, let (name, port) = Self.split(authority: host) else { return false }
        return port == self.port && hosts.contains(name.lowercased())
    }

    /// Whether a WebSocket's `Origin` is the bridge's own: `http://` and the very authority of the `Host` header.
    /// A request without `Origin` comes from no browser (browsers always send it on WebSockets), and passes.
    public func allowsOrigin(_ origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        guard let host, allowsHost(host) else { return false }
        return origin.lowercased() == "http://" + host.lowercased()
    }

    /// The token a request presents: the `Authorization: Bearer` header, the cookie, or the `token` query item.
    public func presentedToken(authorization: String?, cookie: String?, query: String?) -> String? {
        if let authorization, authorization.hasPrefix("Bearer ") { return String(authorization.dropFirst(7)) }
        if let cookie {
            for part in cookie.split(separator: ";") {
                let pair = part.trimmingLeadingSpaces()
                if pair.hasPrefix(cookieName + "=") { return String(pair.dropFirst(cookieName.count + 1)) }
            }
        }
        if let query {
            for item in query.split(separator: "&") where item.hasPrefix("token=") { return String(item.dropFirst(6)) }
        }
        return nil
    }

    /// Whether `candidate` is the token, compared in constant time.
    public func accepts(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let a = Array(candidate.utf8)
        let b = Array(token.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    /// `host:port`, `[v6]:port`; nil when there is no port.
    static func split(authority: String) -> (String, Int)? {
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        let name = String(authority[..<colon])
        guard let port = Int(authority[authority.index(after: colon)...]) else { return nil }
        return (name, port)
    }
}

extension Substring {
    fileprivate func trimmingLeadingSpaces() -> Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        return s
    }
}
