import Foundation
import Testing
@testable import EdgeSwipeTOML

/// Our TOML reader against TOMLKit (toml++ 3.4), the parser the configuration used before: the same documents
/// read to the same trees (key order aside), and the same documents are refused. toml++ is only the oracle here;
/// where it departs from TOML 1.0.0 the spec wins and the case is listed with a comment.
@Suite("TOML reader against TOMLKit")
struct TOMLOracleTests {
    /// Documents both must read, one or more per construct of the specification.
    static let valid: [String] = [
        // A byte order mark at the start (both skip it).
        "\u{FEFF}a = 1\n", "\u{FEFF}[t]\nb = 2\n",
        // Comments, keys.
        "# only a comment\n",
        "key = \"value\" # a comment after a value\n# a comment\n",
        "bare_key = 1\nbare-key = 2\n1234 = 3\n",
        "\"127.0.0.1\" = \"v\"\n\"character encoding\" = 1\n\"ʎǝʞ\" = 2\n'key2' = 3\n'quoted \"value\"' = 4\n",
        "\"\" = \"blank\"\n",
        "name = \"Orange\"\nphysical.color = \"orange\"\nphysical.shape = \"round\"\nsite.\"google.com\" = true\n",
        "fruit.name = \"banana\"\nfruit. color = \"yellow\"\nfruit . flavor = \"banana\"\n",
        "3.14159 = \"pi\"\n",
        "apple.type = \"fruit\"\norange.type = \"fruit\"\napple.skin = \"thin\"\norange.skin = \"thick\"\n",
        "a = 1\r\nb = 2\r\n# crlf\r\n",
        "\u{FEFF}a = 1\n",
        "  indented = 1\n\t[ t ]\n\tk = 2\n",
        // Basic strings and every escape.
        "s = \"I'm a string. \\\"You can quote me\\\". Name\\tJos\\u00E9\\nLocation\\tSF.\"\n",
        "s = \"\\b\\t\\n\\f\\r\\\"\\\\ \\u0041 \\U0001F600 \\u007F\"\n",
        "s = \"tab\there\"\n",
        "s = \"日本語 ✓\"\n",
        // Multi-line basic strings.
        "s = \"\"\"\nRoses are red\nViolets are blue\"\"\"\n",
        "s = \"\"\"\r\nOne\r\nTwo\"\"\"\n",
        "s = \"\"\"\nThe quick brown \\\n\n\n  fox jumps over \\\n    the lazy dog.\"\"\"\n",
        "s = \"\"\"\\\n       The quick brown \\\n       fox.\\\n       \"\"\"\n",
        "s = \"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"\n",
        "s = \"\"\"Here are three quotation marks: \"\"\\\".\"\"\"\n",
        "s = \"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"\n",
        "s = \"\"\"a\"\"\"\"\"\n",
        "s = \"\"\"\"\"\"\n",
        "s = \"\"\"line \\   \n  continued\"\"\"\n",
        // Literal strings.
        "winpath = 'C:\\Users\\nodejs\\templates'\nquoted = 'Tom \"Dubs\" Preston-Werner'\nregex = '<\\i\\c*\\s*>'\n",
        "re = '''I [dw]on't need \\d{2} apples'''\nlines = '''\nThe first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n'''\n",
        "q = '''Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\"'''\napos = \"Here are fifteen apostrophes: '''''''''''''''\"\nstr = ''''That,' she said, 'is still pointless.''''\n",
        "s = '''a'''''\n",
        // Integers.
        "a = +99\nb = 42\nc = 0\nd = -17\ne = 1_000\nf = 5_349_221\ng = 53_49_221\nh = 1_2_3_4_5\ni = -0\nj = +0\n",
        "hex1 = 0xDEADBEEF\nhex2 = 0xdeadbeef\nhex3 = 0xdead_beef\noct1 = 0o01234567\noct2 = 0o755\nbin1 = 0b11010110\nh0 = 0x0\n",
        "max = 9223372036854775807\nmin = -9223372036854775808\nhmax = 0x7FFFFFFFFFFFFFFF\n",
        // Floats.
        "a = +1.0\nb = 3.1415\nc = -0.01\nd = 5e+22\ne = 1e06\nf = -2E-2\ng = 6.626e-34\nh = 224_617.445_991_228\ni = -0.0\nj = +0.0\nk = 0e0\nl = 1e1_0\n",
        // A literal that underflows (read as 0 by both; the largest finite binary64 is below).
        "n = -1.7976931348623157e308\no = 1e-400\n",
        "a = inf\nb = +inf\nc = -inf\nd = nan\ne = +nan\nf = -nan\n",
        "big = 1.7976931348623157e308\nsmall = 5e-324\n",
        // Booleans.
        "t = true\nf = false\n",
        // Dates and times.
        "odt1 = 1979-05-27T07:32:00Z\nodt2 = 1979-05-27T00:32:00-07:00\nodt3 = 1979-05-27T00:32:00.999999-07:00\nodt4 = 1979-05-27 07:32:00Z\nodt5 = 1979-05-27t07:32:00z\n",
        "ldt1 = 1979-05-27T07:32:00\nldt2 = 1979-05-27T00:32:00.999999\nld1 = 1979-05-27\nlt1 = 07:32:00\nlt2 = 00:32:00.999999\n",
        "leap = 2000-02-29\nleap2 = 2024-02-29T23:59:59+14:00\nend = 9999-12-31\nstart = 0001-01-01\n",
        "ms = 1979-05-27T07:32:00.123\nns = 07:32:00.123456789\n",
        "d = 1979-05-27 # a date, then a comment\n",
        // Arrays.
        "integers = [ 1, 2, 3 ]\ncolors = [ \"red\", \"yellow\", \"green\" ]\nnested_arrays_of_ints = [ [ 1, 2 ], [3, 4, 5] ]\nnested_mixed_array = [ [ 1, 2 ], [\"a\", \"b\", \"c\"] ]\nstring_array = [ \"all\", 'strings', \"\"\"are the same\"\"\", '''type''' ]\n",
        "numbers = [ 0.1, 0.2, 0.5, 1, 2, 5 ]\ncontributors = [\n  \"Foo Bar <foo@example.com>\",\n  { name = \"Baz Qux\", email = \"bazqux@example.com\", url = \"https://example.com/bazqux\" }\n]\n",
        "integers2 = [\n  1, 2, 3\n]\nintegers3 = [\n  1,\n  2, # this is ok\n]\n",
        "empty = []\nnested = [[], [[]]]\nspaced = [ ]\ncomments = [ # one\n # two\n]\n",
        "dates = [1979-05-27, 07:32:00, 1979-05-27T07:32:00Z]\n",
        // Tables.
        "[table-1]\nkey1 = \"some string\"\nkey2 = 123\n\n[table-2]\nkey1 = \"another string\"\nkey2 = 456\n",
        "[dog.\"tater.man\"]\ntype.name = \"pug\"\n",
        "[a.b.c]\n[ d.e.f ]\n[ g .  h  . i ]\n[ j . \"ʞ\" . 'l' ]\n",
        "[x.y.z.w]\n[x]\n",
        "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true\n",
        "name = \"Fido\"\nbreed = \"pug\"\n[owner]\nname = \"Regina Dogman\"\nmember_since = 1999-08-04\n",
        "[animal]\n[fruit.apple]\n[fruit.orange]\n",
        "[a]\n[a.b]\n[a.b.c]\nd = 1\n",
        // Inline tables.
        "name = { first = \"Tom\", last = \"Preston-Werner\" }\npoint = { x = 1, y = 2 }\nanimal = { type.name = \"pug\" }\n",
        "empty = {}\nspaced = { }\nnested = { a = { b = { c = 1 } }, d = [ { e = 2 } ] }\n",
        "[product]\ntype = { name = \"Nail\" }\n",
        "t = { a.b = 1, a.c = 2 }\n",
        // Arrays of tables.
        "[[products]]\nname = \"Hammer\"\nsku = 738594937\n\n[[products]]  # empty table within the array\n\n[[products]]\nname = \"Nail\"\nsku = 284758393\ncolor = \"gray\"\n",
        "[[fruits]]\nname = \"apple\"\n\n[fruits.physical]\ncolor = \"red\"\nshape = \"round\"\n\n[[fruits.varieties]]\nname = \"red delicious\"\n\n[[fruits.varieties]]\nname = \"granny smith\"\n\n[[fruits]]\nname = \"banana\"\n\n[[fruits.varieties]]\nname = \"plantain\"\n",
        "points = [ { x = 1, y = 2, z = 3 },\n           { x = 7, y = 8, z = 9 },\n           { x = 2, y = 4, z = 8 } ]\n",
        "[[a.b]]\nx = 1\n[a]\ny = 2\n",
        "[[a]]\n[a.b]\nc = 1\n[[a]]\n[a.b]\nc = 2\n",
        // The configuration's own shapes.
        "version = 1\n[[bindings]]\nedge = \"left\"\nanimator = { style = \"fade\", duration_ms = 200, curve = \"spring\" }\n[[devices.override]]\nmatch = \"x\"\ncalibration = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]\n",
    ]

    /// Documents both must refuse, at least one per kind of error. toml++ aborts the process on some invalid
    /// headers and on a `}` where an array expects a value (Fuzz/Regressions/config); those are read by our
    /// reader alone, in ``TOMLReaderTests``.
    static let invalid: [String] = [
        // A byte order mark anywhere but the start.
        "a = 1\n\u{FEFF}b = 2\n",
        // Keys.
        "= \"no key\"\n", "key = # no value\n", "first = \"Tom\" last = \"Preston-Werner\"\n", "key\n", "a.= 1\n",
        "\"\"\"multi\"\"\" = 1\n", "k é = 1\n",
        // Defined twice, in every way.
        "name = \"Tom\"\nname = \"Pradyun\"\n", "spelling = \"favorite\"\n\"spelling\" = \"favourite\"\n",
        "fruit.apple = 1\nfruit.apple.smooth = true\n",
        "[fruit]\napple = \"red\"\n[fruit]\norange = \"orange\"\n",
        "[fruit]\napple = \"red\"\n[fruit.apple]\ntexture = \"smooth\"\n",
        "[fruit]\napple.color = \"red\"\n[fruit.apple]\n",
        "[a.b.c]\nz = 9\n[a]\nb.c.t = 9\n",
        "a.b.c = 1\n[a.b]\n",
        "[a]\nb = 1\n[a.b]\n",
        "[a]\n[a]\n",
        "[[a]]\n[a]\n", "[a]\n[[a]]\n",
        "a = [1]\n[[a]]\n",
        "a = 1\n[a]\n",
        "[product]\ntype = { name = \"Nail\" }\ntype.edible = false\n",
        "[product]\ntype.name = \"Nail\"\ntype = { edible = false }\n",
        "a = {}\n[a.b]\n",
        "a = { b = 1 }\n[a]\n",
        "t = { a = 1, a = 2 }\n", "t = { a.b = 1, a = 2 }\n",
        "[[fruits]]\nname = \"apple\"\n[[fruits.varieties]]\nname = \"red delicious\"\n[fruits.varieties]\nname = \"granny smith\"\n",
        "[fruit.physical]\ncolor = \"red\"\n[[fruit]]\nname = \"apple\"\n",
        // Strings.
        "s = \"unterminated\n", "s = 'unterminated\n", "s = \"\"\"never closed\n", "s = '''never closed\n",
        "s = \"bad \\x41 escape\"\n", "s = \"\\uD800\"\n", "s = \"\\U00110000\"\n", "s = \"\\u12\"\n", "s = \"\\e\"\n",
        "s = \"a\u{1}b\"\n", "s = 'a\u{7f}b'\n", "s = \"\"\"a\u{8}b\"\"\"\n",
        "s = \"\"\"a\"\"\"\"\"\"\n", "s = '''a''''''\n",
        "s = \"\"\"a \\ b\"\"\"\n",
        // Integers.
        "i = 01\n", "i = +0x10\n", "i = 0x\n", "i = 1__0\n", "i = _1\n", "i = 1_\n", "i = 0xG\n", "i = 0o8\n", "i = 0b2\n",
        "i = 9223372036854775808\n", "i = -9223372036854775809\n", "i = 0X10\n", "i = 1 2\n",
        // Floats.
        "f = .7\n", "f = 7.\n", "f = 3.e+20\n", "f = 03.14\n", "f = 1e\n", "f = 1.0e\n", "f = 1_.0\n", "f = 1._0\n",
        "f = 1e_1\n", "f = Inf\n", "f = NaN\n", "f = infinity\n",
        "f = 1e400\n", "f = -1e400\n", "f = 0.1e1000\n", "f = [1.0, 1e99999999999999999999]\n",
        // Booleans.
        "b = True\n", "b = tru\n", "b = falsey\n",
        // Dates and times.
        "d = 1979-13-01\n", "d = 1979-02-30\n", "d = 2023-02-29\n", "d = 1979-00-10\n", "d = 1979-01-00\n",
        "t = 24:00:00\n", "t = 23:60:00\n", "t = 23:59:61\n", "t = 07:32\n", "d = 1979-05-27T07:32:00+24:00\n",
        "d = 1979-5-27\n", "d = 1979-05-27T\n", "t = 07:32:00.\n", "d = 1979-05-27T07:32:00+07\n",
        // Arrays and inline tables.
        "a = [1, 2\n", "a = [1 2]\n", "a = [,]\n", "a = [1,,2]\n",
        "t = { a = 1, }\n", "t = { a = 1\n}\n", "t = {\n a = 1 }\n", "t = { a = 1 b = 2 }\n", "t = { a }\n",
        // Headers.
        "[a\n", "[a]]\n", "[[a]\n", "[a.]\n", "[]\n", "[a] b = 1\n", "[[a] ]\n",
        // Line ends and control characters.
        "a = 1\rb = 2\n", "# a comment \u{7}\n", "a = 1 # bell \u{7}\n", "a = 1\u{1}\n",
    ]

    @Test("valid documents read to the same tree as TOMLKit's", arguments: valid)
    func validDocument(_ text: String) throws {
        let ours = TOMLKitOracle.normalized(.table(try TOMLReader.read(text)))
        let theirs = try #require(TOMLKitOracle.read(text)).get()
        #expect(ours == theirs, "\(text)")
    }

    /// Where TOMLKit departs from TOML 1.0.0, and what our reader reads instead, following the spec.
    static let departures: [(text: String, ours: TOMLValue, theirs: TOMLValue)] = [
        // `\u0000` is a valid escape (U+0000 is a scalar value); TOMLKit turns toml++'s string into a Swift one
        // through a C string, so the string ends at the NUL.
        ("s = \"a\\u0000b\"\n", .string("a\u{0}b"), .string("a")),
    ]

    @Test("where TOMLKit departs from the spec, we follow the spec", arguments: departures.indices)
    func departure(_ i: Int) throws {
        let (text, ours, theirs) = Self.departures[i]
        #expect(try TOMLReader.read(text)["s"] == ours)
        #expect(try #require(TOMLKitOracle.read(text)).get().table?["s"] == theirs)
    }

    /// A leap second: TOML's grammar allows second 60 (toml.abnf: `time-second = 2DIGIT ; 00-58, 00-59, 00-60
    /// based on leap second rules`), toml++ refuses it. We follow the spec, and the fuzz harness's differential
    /// check knows the departure (found by `scripts/fuzz.sh config`: `At= 05:40:60`).
    @Test("a leap second is read, as TOML allows; toml++ refuses it", arguments: [
        ("t = 23:59:60\n", 23, 59), ("At= 05:40:60", 5, 40), ("d = 1979-05-27T23:59:60Z\n", 23, 59),
        ("d = 1979-05-27 07:32:60.5\n", 7, 32),
    ])
    func leapSecond(_ text: String, _ hour: Int, _ minute: Int) throws {
        let ours = try TOMLReader.read(text)
        #expect(TOMLKitOracle.holdsLeapSecond(.table(ours)))
        let value = try #require(ours.entries.first?.value)
        let time: TOMLLocalTime? = switch value {
        case .localTime(let t): t
        case .localDateTime(let d): d.time
        case .offsetDateTime(let d): d.time
        default: nil
        }
        #expect(time?.hour == hour && time?.minute == minute && time?.second == 60)
        #expect(throws: (any Error).self) { try #require(TOMLKitOracle.read(text)).get() }
    }

    /// A time's fraction of more than 64 digits: TOML says precision past the implementation's "must be truncated,
    /// not rounded", and we keep nine digits; toml++ refuses it (its 64-digit buffer). The harness knows the
    /// departure (found by `scripts/fuzz.sh config`: `zv= 05:40:20.1009444…`, Fuzz/Regressions/config).
    @Test("a time's fraction past 64 digits is truncated to nanoseconds; toml++ refuses it", arguments: [64, 65, 200])
    func longFraction(_ digits: Int) throws {
        let text = "t = 05:40:20.1009" + String(repeating: "4", count: digits - 4) + "\n"
        #expect(try TOMLReader.read(text)["t"] == .localTime(TOMLLocalTime(hour: 5, minute: 40, second: 20, nanosecond: 100_944_444)))
        let theirs = try #require(TOMLKitOracle.read(text))
        switch theirs {
        case .success(let tree): #expect(digits <= 64 && tree.table?["t"] == .localTime(TOMLLocalTime(hour: 5, minute: 40, second: 20, nanosecond: 100_944_444)))
        case .failure(let error): #expect(digits > 64 && TOMLKitOracle.refusedLongFraction(error), "\(error)")
        }
        #expect(TOMLKitOracle.departs(ours: .table(try TOMLReader.read(text)), theirs: theirs) == (digits > 64))
    }

    /// A long float, or a long hexadecimal integer: TOML sets no length, and we read it as a shorter one; toml++
    /// refuses a number of more than 128 characters besides `_` (its buffers), and one whose first 127 characters
    /// are digits and `_` (its scan for the value's type reads no further). The harness knows the departure (found
    /// by `scripts/fuzz.sh config`: `Q=1_999…993.00`, Fuzz/Regressions/config).
    @Test("a long number is read; toml++ refuses one past its buffers", arguments: [
        ("2." + String(repeating: "1", count: 126), false), ("2." + String(repeating: "1", count: 127), true),
        ("1_" + String(repeating: "9", count: 124) + ".5", false), ("1_" + String(repeating: "9", count: 125) + ".5", true),
        ("0x" + String(repeating: "0", count: 127) + "f", false), ("0x" + String(repeating: "0", count: 128) + "f", true),
    ])
    func longNumber(_ number: String, _ refused: Bool) throws {
        let text = "x = \(number)\n"
        let ours = try TOMLReader.read(text)
        let plain = number.replacingOccurrences(of: "_", with: "")
        #expect(ours["x"] == (plain.hasPrefix("0x") ? .integer(15) : Double(plain).map(TOMLValue.float)), "\(ours)")
        let theirs = try #require(TOMLKitOracle.read(text))
        switch theirs {
        case .success(let tree): #expect(!refused && tree == TOMLKitOracle.normalized(.table(ours)))
        case .failure(let error): #expect(refused && TOMLKitOracle.refusedLongNumber(error), "\(error)")
        }
        #expect(TOMLKitOracle.departs(ours: .table(ours), theirs: theirs) == refused)
    }

    /// toml++ skips a byte order mark at the start, so what makes it abort (a header that does not start with a
    /// name) still does after one: the precheck must see the header there (found by `scripts/fuzz.sh config`).
    @Test("what would abort toml++ is not handed to it, after a byte order mark too", arguments: [
        "\u{FEFF}[?", "\u{FEFF}[#]\n", "\u{FEFF}  [[ +x]]\n", "\u{FEFF}x = [}\n",
    ])
    func abortersAfterByteOrderMark(_ text: String) {
        #expect(TOMLKitOracle.read(text) == nil, "\(text.debugDescription) would be handed to toml++")
        #expect(throws: TOMLError.self) { try TOMLReader.read(text) }
    }

    /// toml++ asserts on a date followed by what it starts to read as a time and is none (found by `scripts/fuzz.sh
    /// config`, Fuzz/Regressions/config/date-*.toml); a date alone, or with a time, is handed over as before. What
    /// toml++ takes for a date is ten characters besides `_` that give its scan no trait but a digit's and a '-'
    /// (`0x24-05-05` starts a hexadecimal number, `1e24` an exponent: handed over, and toml++ refuses them).
    @Test("a date with a broken time is not handed to toml++; one with a time, or none, is",
          arguments: [("d = 1979-05-27Tx:00\n", false), ("d = 1979-05-27t :1\n", false), ("Qter= 0524-05-05ti5:k", false),
                      ("d = 1979-05-27tx\n", false), ("x= 0263-05-05 0, 0.0]\n", false), ("d = 1979-05-27 7\n", false),
                      ("Qt= 0524-05-0= 5 005-t=", false), ("t=0524-05-05 0\u{B}[", false), ("d = 1979-05-27 7\u{C}\n", false),
                      ("d = 1979-05-27 7\u{3000}\n", false), ("d = 1979-05-27 7\u{85}\n", false),
                      ("t=0524-05-0X 0\u{B}[", false), ("t=0_524-05-05 0\n", false), ("t=1524-05-0e 0\n", false),
                      ("t=1x24-05-05 0\n", false), ("t=1o24-05-05 0\n", false), ("t=1_2_3_4-0_5-0_5 0]\n", false),
                      ("t=0x24-05-05 0\n", true), ("t=1e24-05-05 0\n", true), ("t=0524-05-0X0 0\n", true),
                      ("d = 1979-05-27 7:32:00\n", true), ("d = 1979-05-27T07:32:00+0\n", true),
                      ("d = [1979-05-27, 1979-05-27T07:32:00.5-07:00]\n", true), ("1979-05-27 = 1\n", true),
                      ("d = 1979-05-27T\n", true), ("d = 1979-05-27 # c\n", true), ("d = 1979-05-27 07:32:00\n", true),
                      ("d = 1979-05-27T07:32:00\n", true), ("d = 1979-05-27t07:32:00Z\n", true), ("t = 'T'\n", true)])
    func dateWithoutTime(_ text: String, _ handedOver: Bool) {
        #expect((TOMLKitOracle.read(text) != nil) == handedOver, "\(text.debugDescription)")
    }

    @Test("invalid documents are refused by both", arguments: invalid)
    func invalidDocument(_ text: String) {
        #expect(throws: TOMLError.self, "\(text.debugDescription)") { try TOMLReader.read(text) }
        #expect(throws: (any Error).self, "TOMLKit accepted \(text.debugDescription)") { try #require(TOMLKitOracle.read(text)).get() }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every TOML file in the repository: the shipped configuration, the e2e scenarios' and the fuzz seeds.
    static let files: [String] = {
        let root = packageRoot
        var out: [String] = []
        for dir in ["config", "scripts/e2e", "Fuzz/corpus/config", "Fuzz/corpus/config-play"] {
            let url = root.appendingPathComponent(dir)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [] {
                if dir.hasPrefix("Fuzz") || name.hasSuffix(".toml") { out.append("\(dir)/\(name)") }
            }
        }
        return out.sorted()
    }()

    @Test("the repository's TOML files read the same with both")
    func repositoryFiles() throws {
        #expect(Self.files.contains("config/default.toml") && Self.files.count > 10, "\(Self.files)")
        for path in Self.files {
            let data = try Data(contentsOf: Self.packageRoot.appendingPathComponent(path))
            let text = String(decoding: data, as: UTF8.self)
            let ours = Result { () throws(TOMLError) -> TOMLValue in TOMLKitOracle.normalized(.table(try TOMLReader.read(text))) }
            // What long fuzz runs found (Fuzz/corpus/*/found-*) may be text toml++ cannot be handed (the harness
            // skips it too); every file written by hand must be comparable.
            guard let theirs = TOMLKitOracle.read(text) else {
                #expect(path.contains("/found-"), "\(path): toml++ cannot be handed it")
                continue
            }
            switch (ours, theirs) {
            case (.success(let a), .success(let b)):
                #expect(a == b, "\(path)")
            case (.failure, .failure):
                break
            case (.success(let a), .failure) where TOMLKitOracle.departs(ours: a, theirs: theirs):
                // The known departures (TOMLKitOracle.departs), as the harness.
                break
            case (.success, .failure(let e)):
                Issue.record("\(path): TOMLKit refused it (\(e)), we read it")
            case (.failure(let e), .success) where e.isBeyondLimit:
                // Our reader's bounds (nesting, dotted parts), which toml++ lacks: as the fuzz harness allows.
                break
            case (.failure(let e), .success):
                Issue.record("\(path): we refused it (\(e)), TOMLKit read it")
            }
        }
    }
}
