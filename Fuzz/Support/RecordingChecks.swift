// Shared by the recording parser targets: what every parse error must say.
import EdgeSwipeInput
import EdgeSwipeRecordings

/// A parser error names the file it was given, says what is wrong, and numbers lines from 1.
func checkRecordingError(_ error: RecordingError, file: String) {
    precondition(error.file == file, "the error names \(error.file), not \(file)")
    precondition(error.description.hasPrefix(file), "an error must start with the file: \(error)")
    precondition(!error.reason.description.isEmpty, "an error must say what is wrong")
    if let line = error.line { precondition(line >= 1, "line \(line): lines are numbered from 1 (\(error))") }
}
