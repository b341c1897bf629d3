import EdgeSwipeBus
import EdgeSwipeCore
import EdgeSwipeSeat
import Foundation
import Glibc
import Logging
import EdgeSwipeTestSupport
import Testing

extension SeatWatcher {
    /// Polls and processes until `done` holds for the changes seen so far, or `seconds` pass.
    func changes(within seconds: Double = 20, until done: ([Change]) -> Bool) throws -> [Change] {
        var seen: [Change] = []
        let deadline = Date().addingTimeInterval(seconds)
        while !done(seen) && Date() < deadline {
            var p = pollfd(fd: pollDescriptor, events: pollEvents, revents: 0)
            _ = poll(&p, 1, 50)
            seen += try process()
        }
        return seen
    }
}

@Suite(.serialized) struct SeatWatcherTests {
    let logger = Logger(label: "test.seat")

    @Test func readsTheActiveSessionAndFollowsSwitches() throws {
        let bus = try MockSeatBus()
        try bus.send("session 2 1000 alice")
        let watcher = try SeatWatcher(
            options: .init(seat: "seat0", followSessions: true, followAccelerometer: false, busAddress: bus.address), logger: logger)
        #expect(watcher.activeSession == .init(id: "2", uid: 1000))

        // A session seen for the first time counts for nobody until logind has said whose it is (never for the
        // previous session's user); one seen before is known at once.
        try bus.send("session 3 1001 bob")
        var seen = try watcher.changes { $0.contains(.activeSession(.init(id: "3", uid: 1001))) }
        #expect(seen == [.activeSession(nil), .activeSession(.init(id: "3", uid: 1001))])

        try bus.send("activate 2")
        seen = try watcher.changes { !$0.isEmpty }
        #expect(seen == [.activeSession(.init(id: "2", uid: 1000))])

        try bus.send("deactivate")
        seen = try watcher.changes { !$0.isEmpty }
        #expect(seen == [.activeSession(nil)])
        #expect(watcher.activeSession == nil)
    }

    @Test func logindLeavingMeansNobodyAndComingBackIsAskedAgain() throws {
        let bus = try MockSeatBus()
        try bus.send("session 2 1000 alice")
        let watcher = try SeatWatcher(
            options: .init(seat: "seat0", followSessions: true, followAccelerometer: false, busAddress: bus.address), logger: logger)
        #expect(watcher.activeSession?.uid == 1000)
        try bus.send("stop logind")
        #expect(try watcher.changes { !$0.isEmpty } == [.activeSession(nil)])
        try bus.send("start logind")
        try bus.send("session 5 1002 carol")
        let seen = try watcher.changes { $0.contains(.activeSession(.init(id: "5", uid: 1002))) }
        #expect(seen.last == .activeSession(.init(id: "5", uid: 1002)))
    }

    @Test func withoutLogindNobodyIsActiveAndNothingBreaks() throws {
        let bus = try MockSeatBus(["sensors"])
        let watcher = try SeatWatcher(
            options: .init(seat: "seat0", followSessions: true, followAccelerometer: false, busAddress: bus.address), logger: logger)
        #expect(watcher.activeSession == nil)
        #expect(try watcher.changes(within: 0.3) { _ in false }.isEmpty)
    }

    @Test func aForgedSeatSignalIsIgnored() throws {
        let bus = try MockSeatBus()
        try bus.send("session 2 1000 alice")
        try bus.send("session 3 1001 bob")
        try bus.send("activate 2")
        let watcher = try SeatWatcher(
            options: .init(seat: "seat0", followSessions: true, followAccelerometer: false, busAddress: bus.address), logger: logger)
        #expect(watcher.activeSession?.uid == 1000)
        try bus.send("forge 3")
        // Then a real change, so that the forged one, sent before it, has surely been read.
        try bus.send("deactivate")
        let seen = try watcher.changes { !$0.isEmpty }
        #expect(seen == [.activeSession(nil)])
    }

    @Test("a slow logind is never waited for: the new session counts for nobody while its user is asked, and a question that timed out is asked again")
    func slowLogind() throws {
        let bus = try MockSeatBus(["slow-logind"])
        try bus.send("session a 4242 alice")
        let watcher = try SeatWatcher(
            options: .init(seat: "seat0", followSessions: true, followAccelerometer: false, busAddress: bus.address), logger: logger)
        #expect(watcher.activeSession == .init(id: "a", uid: 4242))

        // From now on logind answers 10 s late: longer than a question waits (SeatWatcher.callTimeout).
        try bus.send("delay 10")
        try bus.send("session c 4243 carol")
        let seen = try watcher.changes { !$0.isEmpty }
        #expect(seen == [.activeSession(nil)], "the last session logind named is c, whose user it has not said: nobody, never alice")
        #expect(watcher.isAskingLogind)
        #expect(waitUntil(timeout: 10) { (try? bus.send("pending")) == "ok 1" })
        // process() returned with the question still open, and returns again at once while it is.
        #expect(try watcher.process().isEmpty)
        #expect(watcher.isAskingLogind && watcher.activeSession == nil)

        // logind recovers: the question that timed out is asked again, and answered.
        try bus.send("delay 0")
        let later = try watcher.changes(within: 20) { $0.contains(.activeSession(.init(id: "c", uid: 4243))) }
        #expect(later.last == .activeSession(.init(id: "c", uid: 4243)))
        #expect(!watcher.isAskingLogind)
    }

    @Test("malformed readings are logged short and seldom: a value is quoted up to a limit, and repeats are counted, not written")
    func malformedReadingsDoNotFloodTheLog() throws {
        let bus = try MockSeatBus(["sensors"])
        let log = LogCapture()
        let watcher = try SeatWatcher(
            options: .init(seat: "seat0", followSessions: false, followAccelerometer: true, busAddress: bus.address), logger: log.logger)
        _ = try watcher.changes { $0.contains(.orientation(.undefined)) }
        // 100 readings that are no orientation (50 of them 100,000 characters long), then a good one.
        try bus.send("bad-orientations 100 100000")
        try bus.send("orientation left-up")
        let seen = try watcher.changes(within: 30) { $0.contains(.orientation(.leftUp)) }
        #expect(seen == [.orientation(.leftUp)])
        let complaints = log.all.filter { $0.contains("AccelerometerOrientation is") }
        #expect((1...2).contains(complaints.count), "\(complaints.count) complaints")
        let longest = log.all.map(\.utf8.count).max() ?? 0
        #expect(longest < 1000, "the longest line is \(longest) bytes")
    }

    @Test(
        "a value is quoted with a limit, and what a log line must not carry raw is escaped",
        arguments: [
            (BusValue.string(String(repeating: "z", count: 300)), 20, "\"" + String(repeating: "z", count: 19) + "… (cut at 20 characters)"),
            (.string("evil\n\u{202E}x"), 100, #""evil\u{A}\u{202E}x""#),
            (.structure([.uint32(5), .array([.byte(1), .byte(2)])]), 100, "(5, [1, 2])"),
            (.variant(.string("left-up")), 100, #"<"left-up">"#),
        ])
    func boundedDescription(_ value: BusValue, _ limit: Int, _ expected: String) {
        #expect(value.description(limit: limit) == expected)
    }

    @Test func sleepIsReported() throws {
        let bus = try MockSeatBus(["logind"])
        let watcher = try SeatWatcher(
            options: .init(seat: "seat0", followSessions: false, followAccelerometer: false, busAddress: bus.address), logger: logger)
        try bus.send("sleep true")
        try bus.send("sleep false")
        let seen = try watcher.changes { $0.count >= 2 }
        #expect(seen == [.preparingForSleep(true), .preparingForSleep(false)])
    }

    @Test func followsTheAccelerometerAndClaimsItAgainWhenTheProxyReturns() throws {
        let bus = try MockSeatBus(["sensors"])
        let watcher = try SeatWatcher(
            options: .init(seat: "seat0", followSessions: false, followAccelerometer: true, busAddress: bus.address), logger: logger)
        // The claim is answered asynchronously; the first reading follows it.
        var seen = try watcher.changes { $0.contains(.orientation(.undefined)) }
        #expect(seen == [.orientation(.undefined)])
        try bus.send("claimed")
        try bus.send("orientation left-up")
        seen = try watcher.changes { !$0.isEmpty }
        #expect(seen == [.orientation(.leftUp)])

        try bus.send("stop sensors")
        #expect(try watcher.changes(within: 0.3) { _ in false }.isEmpty)
        try bus.send("start sensors")
        seen = try watcher.changes { !$0.isEmpty }
        #expect(seen == [.orientation(.undefined)])
        try bus.send("claimed")
        try bus.send("orientation right-up")
        seen = try watcher.changes { !$0.isEmpty }
        #expect(seen == [.orientation(.rightUp)])
    }

    /// The race behind this suite's flaky accelerometer test (issue 37): on a loaded machine iio-sensor-proxy can
    /// answer the claim and the first reading while the watcher still waits for logind at start-up, and that
    /// reading was dropped with the start-up's other changes; being the value already seen, it was never reported
    /// again. Here logind answers late, so that the start-up waits its whole ``SeatWatcher/startupWait``, within
    /// which the proxy (answering at once) usually answers both.
    @Test("a reading answered while the watcher starts is handed to the first process(), not dropped")
    func aReadingDuringStartUpIsReported() throws {
        let bus = try MockSeatBus(["slow-logind", "sensors"])
        try bus.send("delay 10")
        let log = LogCapture()
        let watcher = try SeatWatcher(
            options: .init(seat: "seat0", followSessions: true, followAccelerometer: true, busAddress: bus.address), logger: log.logger)
        let readDuringStartUp = log.contains("accelerometer: undefined")
        let seen = try watcher.changes { $0.contains(.orientation(.undefined)) }
        #expect(seen.contains(.orientation(.undefined)), "read during start-up: \(readDuringStartUp); \(log.all)")
    }

    /// The other half of the race: a claim iio-sensor-proxy does not answer within ``SeatWatcher/callTimeout`` (a
    /// freshly started proxy starved of the processor; here, one stopped with SIGSTOP) failed for good, and devices
    /// with `rotation = "auto"` stopped following the accelerometer until the next restart of either side.
    @Test("a claim the proxy does not answer in time is made again, at start-up and after the proxy returns", arguments: [false, true])
    func aClaimThatTimedOutIsMadeAgain(_ afterRestart: Bool) throws {
        let bus = try MockSeatBus(["sensors"])
        let log = LogCapture()
        if !afterRestart { try bus.send("freeze sensors") }
        let watcher = try SeatWatcher(
            options: .init(seat: "seat0", followSessions: false, followAccelerometer: true, busAddress: bus.address), logger: log.logger)
        if afterRestart {
            _ = try watcher.changes { $0.contains(.orientation(.undefined)) }
            try bus.send("orientation left-up")
            #expect(try watcher.changes { !$0.isEmpty } == [.orientation(.leftUp)])
            try bus.send("stop sensors")
            try bus.send("start sensors")
            // Stopped before the watcher has read that it came back: the claim it sends then goes unanswered.
            try bus.send("freeze sensors")
        }
        _ = try watcher.changes(within: 30) { _ in log.contains("cannot claim iio-sensor-proxy's accelerometer") }
        #expect(log.contains("cannot claim iio-sensor-proxy's accelerometer"), "\(log.all)")
        try bus.send("thaw sensors")
        let seen = try watcher.changes(within: 30) { $0.contains(.orientation(.undefined)) }
        #expect(seen == [.orientation(.undefined)], "\(log.all)")
        try bus.send("claimed")
    }

    @Test(arguments: [
        (AccelerometerOrientation.normal, Rotation?.some(.degrees0)), (.leftUp, .degrees90), (.bottomUp, .degrees180),
        (.rightUp, .degrees270), (.undefined, nil),
    ])
    func orientationsAreRotations(_ orientation: AccelerometerOrientation, _ rotation: Rotation?) {
        #expect(orientation.rotation == rotation)
    }

    @Test func theLeftEdgeOfADeviceTurnedLeftUpIsTheTopEdgeTheUserSees() throws {
        let rotation = try #require(AccelerometerOrientation.leftUp.rotation)
        // A point on the device's physical left edge, half way down it.
        let seen = rotation.apply(NormalizedPoint(x: 0, y: 0.5))
        #expect(seen.y == 0)
        #expect(abs(seen.x - 0.5) < 1e-9)
    }
}
