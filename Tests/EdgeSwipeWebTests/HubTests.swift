import EdgeSwipeProtocol
import NIOCore
@testable import EdgeSwipeWeb
import Testing

@Suite("bridge fan-out")
struct HubTests {
    static func message(_ json: String) throws -> (ServerMessage, [UInt8]) {
        let line = Array(json.utf8)
        return (try ServerMessage(line: line), line)
    }

    static func progress(_ id: Int, _ percent: Double) -> String {
        #"{"type":"transition","seq":1,"time_us":1,"id":\#(id),"operation":"push","container":"app","from":"a","to":"b","direction":"forward","phase":"changed","percent":\#(percent),"velocity":0,"interactive":true,"progress":true,"geometry":{"from":{"scene":"a","frame":{"x":0,"y":0,"width":1,"height":1},"alpha":1,"z_index":0,"on_stage":true},"to":{"scene":"b","frame":{"x":1,"y":0,"width":1,"height":1},"alpha":1,"z_index":1,"on_stage":true}}}"#
    }

    @Test("a slow tab's progress lines coalesce to the newest per transition; essential lines all stay, in order")
    func coalescing() async throws {
        let hub = Hub(limits: .init(messages: 100, bytes: 1 << 20)) { Array(#"{"type":"bridge"}"#.utf8) }
        let tab = try #require(hub.addTab())
        #expect(await tab.next()?.count == 1, "the welcome (no hello yet)")
        for p in stride(from: 0.1, through: 0.9, by: 0.1) {
            let (m, l) = try Self.message(Self.progress(1, p))
            hub.publish(m, line: l)
        }
        let (m2, l2) = try Self.message(Self.progress(2, 0.5))
        hub.publish(m2, line: l2)
        let batch = try #require(await tab.next())
        #expect(batch.count == 2)
        #expect(String(buffer: batch[0]).contains(#""percent":0.9"#))
        #expect(tab.coalesced == 8)
    }

    @Test("past maxTabs no tab is added; once one leaves, the next is")
    func tabCap() throws {
        let hub = Hub(maxTabs: 2) { Array(#"{"type":"bridge"}"#.utf8) }
        let first = try #require(hub.addTab())
        _ = try #require(hub.addTab())
        #expect(hub.isFull)
        #expect(hub.addTab() == nil)
        hub.removeTab(first)
        #expect(!hub.isFull)
        #expect(hub.addTab() != nil)
    }

    @Test("a place promised to an upgrade counts against the cap until its tab takes it, or its connection closes and gives it back")
    func reservations() throws {
        let hub = Hub(maxTabs: 2) { Array(#"{"type":"bridge"}"#.utf8) }
        let first = try #require(hub.reserve())
        _ = try #require(hub.addTab())
        // Two upgrades answered before the first tab was added: the second is refused (the bridge's 400).
        #expect(hub.isFull)
        #expect(hub.reserve() == nil)
        #expect(hub.addTab() == nil)
        // The promised tab takes its place; a second take or a release after it changes nothing.
        let tab = try #require(hub.addTab(first))
        #expect(hub.addTab(first) == nil)
        first.release()
        #expect(hub.tabCount == 2 && hub.isFull)
        hub.removeTab(tab)
        // A connection that closes before its tab is served gives its place back, once.
        let dropped = try #require(hub.reserve())
        #expect(hub.isFull)
        dropped.release()
        dropped.release()
        #expect(!hub.isFull)
        #expect(hub.addTab(dropped) == nil, "a released place is not taken")
        #expect(hub.addTab() != nil)
        #expect(hub.isFull)
    }

    @Test("a tab past its limit is dropped; the others go on")
    func slowTabDropped() async throws {
        let hub = Hub(limits: .init(messages: 10, bytes: 1 << 20)) { Array(#"{"type":"bridge"}"#.utf8) }
        let slow = try #require(hub.addTab())
        let fast = try #require(hub.addTab())
        _ = await fast.next()
        for i in 0..<20 {
            let (m, l) = try Self.message(#"{"type":"lifecycle","seq":\#(i),"time_us":1,"transition":1,"container":"app","scene":"a","event":"will-appear"}"#)
            hub.publish(m, line: l)
            if i % 5 == 4 { #expect(await fast.next()?.count == 5) }
        }
        #expect(hub.tabCount == 1)
        _ = slow
    }

    @Test("a tab that joins late gets the hello, the latest state and each running transition's began, run-out and latest")
    func snapshot() async throws {
        let hub = Hub { Array(#"{"type":"bridge"}"#.utf8) }
        let lines = [
            #"{"type":"hello","seq":1,"time_us":0,"protocol":1,"server":"edgeswipectl replay","max_line_bytes":65536,"access":{"read":true,"control":true},"devices":[],"config":{"source":"built-in","containers":["shell","app","overlay"],"bindings":[{"edge":"left","container":"app","operation":"pop","device_kinds":[],"fingers":{"min":1,"max":10}},{"edge":"left","container":"shell","operation":"select-tab","device_kinds":[],"fingers":{"min":1,"max":10}},{"edge":"right","container":"shell","operation":"select-tab","device_kinds":[],"fingers":{"min":1,"max":10}},{"edge":"top","container":"overlay","operation":"present","device_kinds":[],"fingers":{"min":1,"max":10}},{"edge":"top","container":"overlay","operation":"dismiss","device_kinds":[],"fingers":{"min":1,"max":10}},{"edge":"bottom","container":"overlay","operation":"dismiss","device_kinds":[],"fingers":{"min":1,"max":10}},{"edge":"bottom","container":"overlay","operation":"present","device_kinds":[],"fingers":{"min":1,"max":10}}],"animator":{"style":"slide","duration_us":350000,"curve":"ease-in-out"},"completion_curve":"ease-in-out","completion_speed":1,"tick_hz":120.0048},"state":{"containers":[{"name":"shell","kind":"tabs","visible":"home","tabs":["launcher","home","settings"],"selected":1},{"name":"app","kind":"navigation","visible":"home","stack":["home"]},{"name":"overlay","kind":"modal","visible":"shell","base":"shell","presented":[]}],"running":[]}}"#,
            Self.progress(3, 0.0).replacingOccurrences(of: #""phase":"changed""#, with: #""phase":"began""#).replacingOccurrences(of: #""progress":true"#, with: #""progress":false"#),
            Self.progress(3, 0.2), Self.progress(3, 0.4),
        ]
        for json in lines {
            let (m, l) = try Self.message(json)
            hub.publish(m, line: l)
        }
        let tab = try #require(hub.addTab())
        let batch = try #require(await tab.next()).map { String(buffer: $0) }
        #expect(batch.first == #"{"type":"bridge"}"#)
        #expect(batch.last?.contains(#""percent":0.4"#) == true)
        #expect(batch.contains { $0.contains(#""phase":"began""#) })
    }
}
