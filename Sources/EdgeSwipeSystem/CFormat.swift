import Glibc

extension String {
    /// `arguments` formatted by C's `vsnprintf` with a `printf` format (`"%.1f"`, `"%9.3fs"`), byte for byte what
    /// Foundation's `String(format:)` writes for numbers, without Foundation: its `String(format:)` lives in the
    /// module that links ICU and its 34 MB of data (docs/PACKAGING.md, "What each byte is"). The locale is C's
    /// (nothing here calls `setlocale`), so the decimal point is always `.`.
    ///
    /// The format is the caller's own literal, never text from outside: the arguments must match its conversions.
    public init(cFormat format: String, _ arguments: any CVarArg...) {
        var buffer = [CChar](repeating: 0, count: 64)
        while true {
            let written = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
            guard written >= 0 else {
                self = ""
                return
            }
            // A longer result (1e300 with "%.1f" is 302 characters) says how much room it wants.
            guard Int(written) < buffer.count else {
                buffer = [CChar](repeating: 0, count: Int(written) + 1)
                continue
            }
            self = String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return
        }
    }
}
