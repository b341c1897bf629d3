import EdgeSwipeCore
import EdgeSwipeSeat
import Foundation
import Glibc
import Logging
import EdgeSwipeTestSupport
import Testing

extension SeatWatcher {
    /// Polls and processes until `done` holds for the changes seen so far, or `seconds` pass.
    func changes(within seconds: Double = 10, until done: ([Change]) -> Bool) throws -> [Change] {
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

        try bus.send("session 3 1001 bob")
        var seen = try watcher.changes { $0.contains(.activeSession(.init(id: "3", uid: 1001))) }
        #expect(seen == [.activeSession(.init(id: "3", uid: 1001))])

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
