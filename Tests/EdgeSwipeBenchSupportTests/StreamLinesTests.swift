import EdgeSwipeBenchSupport
import Testing

/// The client sections' stand-in daemons send the real daemon's captured lines again with other numbers
/// (`CapturedLine`): only the numbers they mean to move may change, and every other byte must stay.
@Suite struct StreamLinesTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var line: String
        var type: String
        var transition: UInt64?
        var completes: Bool
        var seq: UInt64
        var timeShift: Int64
        var idShift: Int64
        var sent: String
    }

    static let cases: [Case] = [
        Case(description: "a transition: seq, time_us, its id and its run-out's times move; the device's number stays",
             line: #"{"type":"transition","seq":100,"time_us":5000,"id":1,"phase":"finishing","device":1,"animation":{"duration_us":105000,"start_time_us":5000,"end_time_us":110000}}"#,
             type: "transition", transition: 1, completes: false, seq: 7, timeShift: 1_000, idShift: 999,
             sent: #"{"type":"transition","seq":7,"time_us":6000,"id":1000,"phase":"finishing","device":1,"animation":{"duration_us":105000,"start_time_us":6000,"end_time_us":111000}}"#),
        Case(description: "a gesture: its transition moves, its own fields stay",
             line: #"{"type":"gesture","seq":8,"time_us":12665521827,"kind":"edge","state":"changed","device":1,"progress":true,"transition":1}"#,
             type: "gesture", transition: 1, completes: false, seq: 9, timeShift: -12_665_000_000, idShift: 4,
             sent: #"{"type":"gesture","seq":9,"time_us":521827,"kind":"edge","state":"changed","device":1,"progress":true,"transition":5}"#),
        Case(description: "a device line: its id is the device's, never moved",
             line: #"{"type":"device","seq":2,"time_us":10,"change":"added","id":1}"#,
             type: "device", transition: nil, completes: false, seq: 3, timeShift: 0, idShift: 50,
             sent: #"{"type":"device","seq":3,"time_us":10,"change":"added","id":1}"#),
        Case(description: "the completing line is known; a time moved before zero stops at zero",
             line: #"{"type":"transition","seq":115,"time_us":20,"id":3,"phase":"completed","percent":1}"#,
             type: "transition", transition: 3, completes: true, seq: 1, timeShift: -100, idShift: 0,
             sent: #"{"type":"transition","seq":1,"time_us":0,"id":3,"phase":"completed","percent":1}"#),
        Case(description: "a line without the numbers is sent as it was, with its newline",
             line: #"{"type":"goodbye","reason":"stopping"}"#,
             type: "goodbye", transition: nil, completes: false, seq: 5, timeShift: 10, idShift: 10,
             sent: #"{"type":"goodbye","reason":"stopping"}"#),
    ]

    @Test(arguments: cases)
    func resent(_ c: Case) {
        let line = CapturedLine(Array(c.line.utf8))
        #expect(line.type == c.type)
        #expect(line.transition == c.transition)
        #expect(line.completes == c.completes)
        #expect(String(decoding: line.sent(seq: c.seq, timeShift: c.timeShift, idShift: c.idShift), as: UTF8.self) == c.sent + "\n")
    }

    @Test("time_us is read without a parser, and only where it is the key itself")
    func timeUS() {
        #expect(LineBytes.timeUS(in: Array(#"{"type":"gesture","time_us":42,"x":1}"#.utf8)[...]) == 42)
        #expect(LineBytes.timeUS(in: Array(#"{"animation":{"start_time_us":42}}"#.utf8)[...]) == nil)
        #expect(LineBytes.timeUS(in: Array(#"{"time_us":"soon"}"#.utf8)[...]) == nil)
        #expect(LineBytes.find(Array("abc".utf8), in: Array("xxab".utf8)[...]) == nil)
    }
}
