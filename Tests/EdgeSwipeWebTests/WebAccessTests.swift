import EdgeSwipeWeb
import Testing

@Suite("web access")
struct WebAccessTests {
    let access = WebAccess(token: String(repeating: "ab", count: 32), port: 8765, listenHost: "127.0.0.1")

    @Test("the token is read from the bearer header, the port's cookie or the query, and nowhere else")
    func presented() {
        let t = access.token
        #expect(access.presentedToken(authorization: "Bearer \(t)", cookie: nil, query: nil) == t)
        #expect(access.presentedToken(authorization: nil, cookie: "a=b; edgeswipe-token-8765=\(t); c=d", query: nil) == t)
        #expect(access.presentedToken(authorization: nil, cookie: "edgeswipe-token-8766=\(t)", query: nil) == nil)
        #expect(access.presentedToken(authorization: nil, cookie: nil, query: "x=1&token=\(t)") == t)
        #expect(access.presentedToken(authorization: "Basic abc", cookie: nil, query: "tokens=\(t)") == nil)
        #expect(access.accepts(t))
        #expect(!access.accepts(nil) && !access.accepts("") && !access.accepts(String(t.dropLast())) && !access.accepts(t + "0"))
    }

    @Test("Host and Origin: the bridge's own names and port only", arguments: [
        ("127.0.0.1:8765", "http://127.0.0.1:8765", true),
        ("localhost:8765", "http://localhost:8765", true),
        ("LOCALHOST:8765", "http://localhost:8765", true),
        ("[::1]:8765", "http://[::1]:8765", true),
        ("127.0.0.1:8765", "http://localhost:8765", false),
        ("127.0.0.1:8765", "https://127.0.0.1:8765", false),
        ("127.0.0.1:8765", "http://127.0.0.1:8766", false),
        ("127.0.0.1:8765", "null", false),
        ("evil.example:8765", "http://evil.example:8765", false),
        ("127.0.0.1", "http://127.0.0.1", false),
    ])
    func origins(_ host: String, _ origin: String, _ allowed: Bool) {
        #expect(access.allowsOrigin(origin, host: host) == allowed)
    }

    @Test("random tokens are 64 hex digits and differ")
    func tokens() {
        let a = WebAccess.randomToken(), b = WebAccess.randomToken()
        #expect(a.count == 64 && a.allSatisfy(\.isHexDigit) && a != b)
    }
}
