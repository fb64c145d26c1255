/// Issue #33's code, full of control characters, and what each `control_characters` policy makes
/// of it on a data channel and on a keyboard wedge: one table for the daemon's outputs and the
/// `layout` command, so that both are held to the same answer.
public enum HostileCode {
    /// CR LF, a clear-screen and a window-title sequence, BEL, TAB, ETX, DEL, NUL, then GS.
    public static let text = "AB\r\nCD\u{1B}[2J\u{1B}]0;pwn\u{07}\t\u{03}\u{7F}\u{00}Z\u{1D}9"

    public enum Policy: String, CaseIterable, Sendable {
        /// No `control_characters` key: the output's default.
        case unset, keep, drop, replace, caret, escape

        /// The key in an output's flow mapping, with its leading comma.
        public var yaml: String {
            switch self {
            case .unset: ""
            case .replace: ", control_characters: { replace: \"?\" }"
            default: ", control_characters: \(rawValue)"
            }
        }

        /// `kiosk-scanner layout`'s option.
        public var option: [String] {
            switch self {
            case .unset: []
            case .replace: ["--control-characters", "replace:?"]
            default: ["--control-characters", rawValue]
            }
        }

        /// The data a data channel sends (`unset` is `keep` there).
        public var serialData: String {
            switch self {
            case .unset, .keep: HostileCode.text
            case .drop: "ABCD[2J]0;pwnZ9"
            case .replace: "AB??CD?[2J?]0;pwn?????Z?9"
            case .caret: "AB^M^JCD^[[2J^[]0;pwn^G^I^C^?^@Z^]9"
            case .escape: #"AB\r\nCD\x1b[2J\x1b]0;pwn\a\t\x03\x7f\x00Z\x1d9"#
            }
        }

        /// What a `us` host reads from a keyboard wedge's data (`unset` is `drop` there), before the
        /// terminator: under `keep`, CR LF is one Enter and TAB a Tab, and what no key types is left
        /// out; GS is Ctrl+] unless the policy rewrites it.
        public var typed: String {
            switch self {
            case .keep: "AB\rCD[2J]0;pwn\tZ<ctrl-bracketright>9"
            case .unset, .drop: "ABCD[2J]0;pwnZ<ctrl-bracketright>9"
            default: serialData
            }
        }
    }
}
