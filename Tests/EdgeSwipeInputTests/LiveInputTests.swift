import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeLiveInput
import EdgeSwipeInputTestSupport
import Logging
import Testing

struct FilterCase: CustomTestStringConvertible, Sendable {
    var name: String
    var filter: DeviceFilter
    var candidate: DeviceCandidate
    var expected: DeviceFilter.Decision
    var testDescription: String { name }
}

private func candidate(_ name: String, _ properties: [String: String], path: String = "/dev/input/event5") -> DeviceCandidate {
    DeviceCandidate(name: name, path: path, properties: properties)
}

private let screenProps = ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1", "ID_BUS": "usb", "DEVLINKS": "/dev/input/by-id/usb-ELAN-event-if00 /dev/input/by-path/pci-0000:00:14.0-usb-0:8:1.0-event"]
private let padProps = ["ID_INPUT": "1", "ID_INPUT_TOUCHPAD": "1"]

@Suite struct DeviceFilterTests {
    static let cases: [FilterCase] = [
        FilterCase(name: "a touchscreen is opened", filter: DeviceFilter(), candidate: candidate("ELAN", screenProps), expected: .accept(.touchscreen)),
        FilterCase(name: "a touchpad is opened", filter: DeviceFilter(), candidate: candidate("Synaptics", padProps), expected: .accept(.touchpad)),
        FilterCase(
            name: "a keyboard never is, even when allowed", filter: DeviceFilter(allow: [.name("*")]),
            candidate: candidate("AT keyboard", ["ID_INPUT_KEYBOARD": "1", "ID_INPUT_KEY": "1"]), expected: .reject("a keyboard")),
        FilterCase(
            name: "a mouse never is", filter: DeviceFilter(), candidate: candidate("Mouse", ["ID_INPUT_MOUSE": "1"]),
            expected: .reject("a mouse")),
        FilterCase(
            name: "a pen without touch never is", filter: DeviceFilter(), candidate: candidate("Wacom Pen", ["ID_INPUT_TABLET": "1"]),
            expected: .reject("a pen tablet")),
        FilterCase(
            name: "a composite keyboard with a touchpad is a keyboard", filter: DeviceFilter(),
            candidate: candidate("Combo", ["ID_INPUT_KEYBOARD": "1", "ID_INPUT_TOUCHPAD": "1"]), expected: .reject("a keyboard")),
        FilterCase(
            name: "EDGESWIPE_IGNORE=1 excludes", filter: DeviceFilter(allow: [.name("ELAN")]),
            candidate: candidate("ELAN", screenProps.merging(["EDGESWIPE_IGNORE": "1"]) { $1 }), expected: .reject("EDGESWIPE_IGNORE=1")),
        FilterCase(
            name: "something else is not opened", filter: DeviceFilter(), candidate: candidate("Power Button", ["ID_INPUT_KEY": "1"]),
            expected: .reject("not a touchscreen or touchpad")),
        FilterCase(
            name: "deny by name pattern", filter: DeviceFilter(deny: [.name("ELAN*")]), candidate: candidate("ELAN Touchscreen", screenProps),
            expected: .reject("denied by name:ELAN*")),
        FilterCase(
            name: "deny by a udev symlink", filter: DeviceFilter(deny: [.path("/dev/input/by-id/usb-ELAN-*")]),
            candidate: candidate("ELAN", screenProps), expected: .reject("denied by path:/dev/input/by-id/usb-ELAN-*")),
        FilterCase(
            name: "deny by property value", filter: DeviceFilter(deny: [.property("ID_BUS", value: "usb")]),
            candidate: candidate("ELAN", screenProps), expected: .reject("denied by property:ID_BUS=usb")),
        FilterCase(
            name: "a property rule without a value matches any value", filter: DeviceFilter(allow: [.property("ID_BUS", value: nil)]),
            candidate: candidate("ELAN", screenProps), expected: .accept(.touchscreen)),
        FilterCase(
            name: "an allow list leaves out the others", filter: DeviceFilter(allow: [.path("/dev/input/event9")]),
            candidate: candidate("Synaptics", padProps), expected: .reject("not in the allow list")),
        FilterCase(
            name: "an allow list lets its devices in", filter: DeviceFilter(allow: [.path("/dev/input/event?")]),
            candidate: candidate("Synaptics", padProps), expected: .accept(.touchpad)),
        FilterCase(
            name: "deny wins over allow", filter: DeviceFilter(allow: [.name("*")], deny: [.name("Synaptics")]),
            candidate: candidate("Synaptics", padProps), expected: .reject("denied by name:Synaptics")),
    ]

    @Test(arguments: cases)
    func decides(_ c: FilterCase) {
        #expect(c.filter.decide(c.candidate) == c.expected)
    }

    @Test(arguments: [
        ("name:Wacom*", DeviceFilter.Rule.name("Wacom*")),
        ("path:/dev/input/event3", .path("/dev/input/event3")),
        ("property:ID_BUS=usb", .property("ID_BUS", value: "usb")),
        ("property:ID_INPUT_TOUCHSCREEN", .property("ID_INPUT_TOUCHSCREEN", value: nil)),
        ("property:EMPTY=", .property("EMPTY", value: "")),
    ])
    func rulesParse(_ text: String, _ rule: DeviceFilter.Rule) throws {
        #expect(try DeviceFilter.Rule(parsing: text) == rule)
        #expect(rule.description == text)
    }

    @Test("the configuration's allow and deny lists are read as rules, and the first bad one is named")
    func listsParse() throws {
        let filter = try DeviceFilter(parsingAllow: ["name:ELAN*", "property:ID_BUS=usb"], deny: ["path:/dev/input/event9"])
        #expect(filter == DeviceFilter(allow: [.name("ELAN*"), .property("ID_BUS", value: "usb")], deny: [.path("/dev/input/event9")]))
        #expect(try DeviceFilter(parsingAllow: [], deny: []) == DeviceFilter())
        #expect(throws: DeviceFilterError.badRule("Wacom")) { _ = try DeviceFilter(parsingAllow: ["name:x"], deny: ["Wacom", "size:3"]) }
    }

    @Test(arguments: ["Wacom", "size:3", "name:", "property:=1"])
    func badRulesSayWhatIsExpected(_ text: String) {
        #expect(throws: DeviceFilterError.badRule(text)) { _ = try DeviceFilter.Rule(parsing: text) }
        #expect(DeviceFilterError.badRule(text).description == "device rule '\(text)' must be name:PATTERN, path:PATTERN or property:KEY[=VALUE]")
    }
}

@Suite struct TouchFrameAssemblerTests {
    @Test func touchesBecomeOneFramePerLibinputFrame() {
        var assembler = TouchFrameAssembler(device: DeviceID(4))
        assembler.touch(.down, slot: 0, position: NormalizedPoint(x: 0.1, y: 0.2))
        assembler.touch(.down, slot: 1, position: NormalizedPoint(x: 0.5, y: 0.5))
        let first = assembler.endFrame(at: MonotonicInstant(microseconds: 1000))
        #expect(first?.device == DeviceID(4))
        #expect(first?.time == MonotonicInstant(microseconds: 1000))
        #expect(first?.touches.map(\.phase) == [.down, .down])
        #expect(first?.touches.first?.position == NormalizedPoint(x: 0.1, y: 0.2))

        assembler.touch(.motion, slot: 0, position: NormalizedPoint(x: 0.2, y: 0.2))
        assembler.touch(.up, slot: 1, position: nil)
        let second = assembler.endFrame(at: MonotonicInstant(microseconds: 2000))
        #expect(second?.touches.map(\.phase) == [.motion, .up])
        // An up is placed where its touch last was: libinput gives it no coordinates.
        #expect(second?.touches.last?.position == NormalizedPoint(x: 0.5, y: 0.5))
        #expect(assembler.touchesDown == 1)
        #expect(assembler.endFrame(at: MonotonicInstant(microseconds: 3000)) == nil)
    }

    @Test func touchesNeverSeenDownAreIgnored() {
        var assembler = TouchFrameAssembler(device: DeviceID(1))
        assembler.touch(.motion, slot: 3, position: NormalizedPoint(x: 0.5, y: 0.5))
        assembler.touch(.up, slot: 3, position: nil)
        assembler.touch(.cancel, slot: 4, position: nil)
        #expect(assembler.endFrame(at: .zero) == nil)
    }

    @Test func cancelIsPassedOnAndPositionsAreClamped() {
        var assembler = TouchFrameAssembler(device: DeviceID(1))
        // Out-of-range coordinates pass through libinput unclamped (FIELD-NOTES: -0.29 mm).
        assembler.touch(.down, slot: 0, position: NormalizedPoint(x: -0.002, y: 1.01))
        _ = assembler.endFrame(at: .zero)
        assembler.touch(.cancel, slot: 0, position: nil)
        let frame = assembler.endFrame(at: MonotonicInstant(microseconds: 5))
        #expect(frame?.touches.map(\.phase) == [.cancel])
        #expect(frame?.touches.first?.position == NormalizedPoint(x: 0, y: 1))
    }
}

@Suite struct LibinputCalibrationTests {
    @Test(arguments: [
        (Rotation.degrees0, [Float(1), 0, 0, 0, 1, 0]),
        (.degrees90, [0, -1, 1, 1, 0, 0]),
        (.degrees180, [-1, 0, 1, 0, -1, 1]),
        (.degrees270, [0, 1, 0, -1, 0, 1]),
    ])
    func rotationsBecomeLibinputMatrices(_ rotation: Rotation, _ matrix: [Float]) {
        #expect(LibinputCalibration.matrix(rotation: rotation, calibration: nil) == matrix)
    }

    @Test func calibrationComesBeforeRotation() {
        // Shift right by 0.1, then turn half-way: a touch at x = 0.2 lands at 1 - 0.3.
        let m = LibinputCalibration.matrix(rotation: .degrees180, calibration: CalibrationMatrix(1, 0, 0.1, 0, 1, 0))
        let x = m[0] * 0.2 + m[1] * 0.5 + m[2]
        #expect(abs(x - 0.7) < 1e-6)
    }
}

@Suite struct LibinputLogTests {
    @Test(arguments: [(UInt32(10), Logger.Level.debug), (20, .info), (30, .error)])
    func libinputPrioritiesBecomeLevels(_ priority: UInt32, _ level: Logger.Level) {
        #expect(LibinputLog.level(forPriority: priority) == level)
        #expect(LibinputLog.priority(for: level) == priority)
    }

    @Test func logLinesLoseTheirNewline() {
        #expect(LibinputLog.line("event5  - ELAN: is tagged by udev as: Touchscreen\n") == "event5  - ELAN: is tagged by udev as: Touchscreen")
    }
}

@Suite struct EvdevReadLoopTests {
    private static let t = MonotonicInstant(microseconds: 1000)

    /// Reads served from a script, recording the mode each read asked for.
    final class Script {
        var reads: [EvdevRead]
        var modes: [Bool] = []
        init(_ reads: [EvdevRead]) { self.reads = reads }
        func next(sync: Bool) -> EvdevRead {
            modes.append(sync)
            return reads.isEmpty ? .again : reads.removeFirst()
        }
    }

    private static func frame(_ evs: [Ev], at time: MonotonicInstant) -> [EvdevEvent] {
        evs.map { $0.event(at: time) } + [.report(at: time)]
    }

    @Test func normalReadsUntilAgain() {
        var decoder = TestDevices.decoder(.multitouchB(slots: 2))
        var loop = EvdevReadLoop()
        let script = Script(Self.frame([.id(1), .x(1), .y(2)], at: Self.t).map { .event($0) } + [.again])
        var steps: [InputStep] = []
        #expect(loop.drain(decoder: &decoder, read: script.next, handle: { steps.append($0) }) == .drained)
        #expect(steps.count == 1)
        #expect(script.modes.allSatisfy { !$0 })
    }

    @Test func syncModeAfterDroppedUntilAgainThenNormal() {
        var decoder = TestDevices.decoder(.multitouchB(slots: 2))
        var loop = EvdevReadLoop()
        let dropped = EvdevEvent(time: Self.t, type: EvdevType.syn, code: EvdevSyn.dropped, value: 0)
        let reads: [EvdevRead] =
            Self.frame([.id(1), .x(1), .y(2)], at: Self.t).map { .event($0) }
            + [.sync(dropped)] + Self.frame([.slot(0), .x(5)], at: Self.t).map { .sync($0) } + [.again]
            + Self.frame([.slot(1), .id(2), .x(9), .y(9)], at: Self.t + Microseconds(10_000)).map { .event($0) } + [.again]
        let script = Script(reads)
        var lines: [String] = []
        let outcome = loop.drain(decoder: &decoder, read: script.next) { step in
            switch step.input {
            case .frame(let f): lines += f.touches.map { "\($0.phase.rawValue) \($0.id)" }
            case .eventsLost: lines.append("lost")
            case .deviceAdded, .deviceChanged, .deviceRemoved, .swipe: lines.append("?")
            }
        }
        #expect(outcome == .drained)
        #expect(lines == ["down 0", "lost", "down 1"])
        // Sync mode from the read after SYN_DROPPED up to and including the -EAGAIN that ends it.
        let syncReads = script.modes.enumerated().filter(\.element).map(\.offset)
        #expect(syncReads == Array(5...8))
        #expect(!loop.syncing)
    }

    @Test func anUnpluggedDeviceFails() {
        var decoder = TestDevices.decoder(.multitouchB(slots: 2))
        var loop = EvdevReadLoop()
        let script = Script([.failed(errno: 19)])
        #expect(loop.drain(decoder: &decoder, read: script.next, handle: { _ in }) == .failed(errno: 19))
    }
}

/// The real C path, as far as a machine without input devices allows: contexts are created and torn down, and
/// a node that is not a device is refused with the reason.
@Suite struct LibinputSmokeTests {
    @Test func thePathBackendRefusesANodeThatIsNotADevice() {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        do {
            _ = try LiveTouchInput(backend: .paths(["/nonexistent/event99"]), logger: logger)
            Issue.record("a missing node was added")
        } catch {
            #expect(error.description == "/nonexistent/event99: not an input device node udev knows")
        }
    }

    @Test func aPathContextWithNoDevicesDrainsNothing() throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let input = try LiveTouchInput(backend: .paths([]), logger: logger)
        #expect(input.pollDescriptors.count == 1)
        #expect(try input.drain(now: .zero).isEmpty)
        #expect(input.devices.isEmpty)
    }

    @Test func suspendAndResumeAreIdempotentAndReportNothingWithoutDevices() throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let input = try LiveTouchInput(backend: .paths([]), logger: logger)
        var steps: [InputStep] = []
        input.suspend(now: .zero) { steps.append($0) }
        input.suspend(now: .zero) { steps.append($0) }
        #expect(input.isSuspended)
        input.resume()
        input.resume()
        #expect(!input.isSuspended)
        #expect(try input.drain(now: .zero).isEmpty)
        #expect(steps.isEmpty)
    }
}
