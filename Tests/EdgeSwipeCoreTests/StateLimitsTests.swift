import Testing
@testable import EdgeSwipeCore

/// Every limit of ``StateLimits`` at the limit (accepted) and one past it (refused, with the reason).
@Suite("State limits")
struct StateLimitsTests {
    static func name(_ bytes: Int, _ seed: Character = "s") -> String { String(repeating: seed, count: bytes) }

    static func request(_ engine: inout Engine, _ op: TransitionOperation, in container: String) -> Result<TransitionID, TransitionRefusal> {
        var events: [EngineEvent] = []
        do {
            return .success(try engine.request(op, in: container, animated: false, at: engine.now, into: &events))
        } catch {
            return .failure(error)
        }
    }

    @Test("names: 256 bytes of UTF-8 are a name, 257 are not; empty names and control characters are refused", arguments: [
        (name(256), nil),
        (String(repeating: "é", count: 128), nil),
        (name(257), "is 257 bytes long; a name holds at most 256 bytes"),
        (String(repeating: "é", count: 128) + "x", "is 257 bytes long"),
        ("", "is empty"),
        ("tab\tname", "contains the control character U+0009"),
        ("bell\u{7F}", "contains the control character U+007F"),
    ] as [(String, String?)])
    func names(_ name: String, _ problem: String?) {
        let found = StateLimits.nameProblem(name)
        if let problem { #expect(found?.hasPrefix(problem) == true, "\(found ?? "nil")") } else { #expect(found == nil) }
    }

    @Test("a stack of 256 scenes is the deepest; the push that would make 257 is refused, and so is a name past 256 bytes")
    func stackDepth() {
        var engine = Engine(configuration: EngineConfiguration(containers: [Container(name: "app", content: .navigation(stack: ["home"]))], bindings: []))
        for i in 1..<StateLimits.maxStackDepth {
            guard case .success = Self.request(&engine, .push(scene: "s\(i)"), in: "app") else {
                Issue.record("push \(i) refused")
                return
            }
        }
        guard case .navigation(let stack) = engine.containers[0].content else { return }
        #expect(stack.count == 256)
        guard case .failure(let refusal) = Self.request(&engine, .push(scene: "one-more"), in: "app") else {
            Issue.record("the 257th scene was pushed")
            return
        }
        #expect(refusal.code == "limit-exceeded" && refusal.description.contains("at most 256 scenes"), "\(refusal)")
        _ = Self.request(&engine, .pop, in: "app")
        guard case .failure(let long) = Self.request(&engine, .push(scene: Self.name(257)), in: "app") else {
            Issue.record("a 257-byte name was pushed")
            return
        }
        #expect(long.code == "invalid-field")
        guard case .success = Self.request(&engine, .push(scene: Self.name(256)), in: "app") else {
            Issue.record("a 256-byte name was refused")
            return
        }
    }

    @Test("64 presented scenes are the most; the 65th is refused")
    func presented() {
        var engine = Engine(configuration: EngineConfiguration(containers: [Container(name: "m", content: .modal(base: "base", presented: []))], bindings: []))
        for i in 0..<StateLimits.maxPresented {
            guard case .success = Self.request(&engine, .present(scene: "p\(i)", style: .custom, frame: nil), in: "m") else {
                Issue.record("present \(i) refused")
                return
            }
        }
        guard case .failure(let refusal) = Self.request(&engine, .present(scene: "p64", style: .custom, frame: nil), in: "m") else {
            Issue.record("the 65th scene was presented")
            return
        }
        #expect(refusal.code == "limit-exceeded")
    }

    @Test("the whole state: a push that keeps it at the limit goes through, one that passes it is refused")
    func stateSize() {
        // Four stacks of 255 scenes of 240 bytes (256 each with the allowance) come close to the limit; a fifth
        // container takes fillers until one more name fills the state exactly.
        let long = (0..<255).map { "\($0)-" + Self.name(240 - "\($0)-".utf8.count) }
        var containers = (0..<4).map { Container(name: "n\($0)", content: .navigation(stack: long)) }
        var last = ["root"]
        func remaining() -> Int {
            StateLimits.maxStateBytes - StateLimits.size(of: containers + [Container(name: "last", content: .navigation(stack: last))])
        }
        while remaining() > StateLimits.maxNameBytes + StateLimits.entryAllowance { last.append(Self.name(240)) }
        let room = remaining() - StateLimits.entryAllowance
        containers.append(Container(name: "last", content: .navigation(stack: last)))
        #expect(room > 0 && room <= StateLimits.maxNameBytes, "room \(room)")
        var engine = Engine(configuration: EngineConfiguration(containers: containers, bindings: []))
        guard case .success = Self.request(&engine, .push(scene: Self.name(room)), in: "last") else {
            Issue.record("the push to exactly the limit was refused")
            return
        }
        #expect(StateLimits.size(of: engine.containers) == StateLimits.maxStateBytes)
        guard case .failure(let refusal) = Self.request(&engine, .push(scene: "x"), in: "last") else {
            Issue.record("a push past the limit went through")
            return
        }
        #expect(refusal.code == "limit-exceeded" && refusal.description.contains("over the \(StateLimits.maxStateBytes)"), "\(refusal)")
        // Shrinking is always allowed.
        guard case .success = Self.request(&engine, .pop, in: "last") else {
            Issue.record("a pop at the limit was refused")
            return
        }
    }

    @Test("frames: finite, the origin within 10 containers, the size from 0.001 to 10", arguments: [
        (NormalizedRect(x: 0, y: 0.5, width: 1, height: 0.5), nil),
        (NormalizedRect(x: -10, y: 10, width: 0.001, height: 10), nil),
        (NormalizedRect(x: 1e308, y: 0, width: 1, height: 1), "x must be between -10 and 10"),
        (NormalizedRect(x: 0, y: 0, width: 1, height: 1e-308), "height must be between 0.001 and 10"),
        (NormalizedRect(x: 0, y: 0, width: 0.0009, height: 1), "width must be between 0.001 and 10"),
        (NormalizedRect(x: 0, y: -10.5, width: 1, height: 1), "y must be between -10 and 10"),
        (NormalizedRect(x: 0, y: 0, width: 10.5, height: 1), "width must be between"),
        (NormalizedRect(x: .nan, y: 0, width: 1, height: 1), "x must be a finite number"),
        (NormalizedRect(x: 0, y: 0, width: .infinity, height: 1), "width must be a finite number"),
    ] as [(NormalizedRect, String?)])
    func frames(_ rect: NormalizedRect, _ problem: String?) {
        let found = rect.validationProblem
        if let problem { #expect(found?.hasPrefix(problem) == true, "\(found ?? "nil")") } else { #expect(found == nil) }
        var engine = Engine(configuration: EngineConfiguration(containers: [Container(name: "m", content: .modal(base: "base", presented: []))], bindings: []))
        let result = Self.request(&engine, .present(scene: "card", style: .custom, frame: rect), in: "m")
        switch (result, problem) {
        case (.success, nil), (.failure(.invalid), .some): break
        default: Issue.record("\(result) for \(rect)")
        }
    }
}
