import ConfigFile
import ConfigReading
import Testing

/// A config file the parser must refuse, and what its error must say: the line, the key, and a
/// reason that contains `reason`. Every section's cases are gathered below, one list a suite.
struct BadConfig: Sendable, CustomTestStringConvertible {
    let text: String
    let line: Int
    let key: String
    let reason: String

    var testDescription: String { "\(key): \(reason)" }

    /// Expects the parse to fail with this error.
    func expectRefused(sourceLocation: SourceLocation = #_sourceLocation) {
        expectConfigError(text, line: line, key: key, reason: reason, sourceLocation: sourceLocation)
    }

    /// Cases written as rows of (text, line, key, reason).
    static func rows(_ rows: [(String, Int, String, String)]) -> [BadConfig] {
        rows.map { BadConfig(text: $0.0, line: $0.1, key: $0.2, reason: $0.3) }
    }
}

/// Expects `text` to fail to parse with an error at `line` on `key` whose reason contains
/// `reason`, written as `FILE:LINE: KEY: REASON`.
func expectConfigError(_ text: String, line: Int, key: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let error = #expect(throws: ConfigError.self, sourceLocation: sourceLocation) { try ConfigFile.parse(text, file: "/etc/k.conf") }
    #expect(error?.file == "/etc/k.conf", sourceLocation: sourceLocation)
    #expect(error?.line == line, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.key == key, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.reason.contains(reason) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.description.hasPrefix("/etc/k.conf:\(line): \(key): ") == true, sourceLocation: sourceLocation)
}

extension BadConfig {
    /// ConfigFileTests: camera, decoder, viewport, socket, tracking, gpio, feedback, metrics and outputs.
    static let general = rows([
        ("camera:\n  fps: 30\n  colour: red\n", 3, "camera.colour", "unknown key"),
        ("camera:\n  fps: fast\n", 2, "camera.fps", "whole number"),
        ("camera:\n  width: 640\n\n  fps: 500\n", 4, "camera.fps", "out of range"),
        ("camera:\n  device: /dev/video0\n  controls: { gain: 2.5 }\n", 3, "camera.controls.gain", "whole number"),
        ("camera:\n  device: libcamera\n  autofocus: sometimes\n", 3, "camera.autofocus", "continuous, auto, manual, off"),
        ("camera:\n  device: libcamera\n  lens_position: -1\n", 3, "camera.lens_position", "out of range"),
        ("decoder:\n  symbologies:\n    - ean13\n    - qrcode\n", 4, "decoder.symbologies[1]", "unknown symbology"),
        ("tracking:\n  confirm: [itf, i25]\n", 2, "tracking.confirm[1]", "unknown symbology"),
        ("viewport:\n  square: 1.5\n", 2, "viewport.square", "out of range"),
        ("viewport:\n  rect: [0.5, 0.5, 0.6, 0.1]\n", 2, "viewport.rect", "inside the frame"),
        ("socket:\n  mode: \"0999\"\n", 2, "socket.mode", "octal"),
        ("socket:\n  format: xml\n", 2, "socket.format", "json, plain"),
        ("tracking:\n  absence: -1\n", 2, "tracking.absence", "out of range"),
        ("decoder:\n  lengths:\n    itf: { min: 10, max: 4 }\n", 3, "decoder.lengths.itf", "above max"),
        ("scoket:\n  path: /x\n", 1, "scoket", "unknown key"),
        ("camera: [1, 2]\n", 1, "camera", "mapping"),
        ("decoder:\n  engine: zbar\n  symbologies: [qr, datamatrix]\n", 3, "decoder.symbologies", "ZBar cannot read datamatrix"),
        ("decoder:\n  engine: zxing\n  symbologies: [qr, databar, code128, isbn13]\n", 3, "decoder.symbologies", "isbn13 are read by ZBar only"),
        ("decoder:\n  engine: quagga\n", 2, "decoder.engine", "zbar, zxing, both"),
        ("gpio:\n  torch: { chip: gpiochip0 }\n", 2, "gpio.torch", "needs chip"),
        ("gpio:\n  torch: { chip: gpiochip0, line: 17, drive: totem-pole }\n", 2, "gpio.torch.drive", "push-pull, open-drain"),
        ("gpio:\n  trigger: { chip: 0, line: 23, bias: pull-sideways }\n", 2, "gpio.trigger.bias", "pull-up"),
        ("gpio:\n  trigger: { chip: 0, line: 23, drive: open-drain }\n", 2, "gpio.trigger.drive", "unknown key"),
        ("gpio:\n  buzzer:\n    type: piezo\n", 3, "gpio.buzzer.type", "active (a GPIO line), passive (a PWM channel)"),
        ("gpio:\n  buzzer: { type: passive, pwm_chip: pwmchip0 }\n", 2, "gpio.buzzer.pwm_chip", "sysfs path"),
        ("gpio:\n  torch: { chip: 0, line: 17, active_low: yes }\n", 2, "gpio.torch.active_low", "true or false"),
        ("feedback:\n  good_read: { beep: 9 }\n", 2, "feedback.good_read.beep", "out of range"),
        ("metrics:\n  textfile: /tmp/x.txt\n", 2, "metrics.textfile", ".prom"),
        ("outputs:\n  - type: printer\n", 2, "outputs[0].type", "serial, keyboard, hid-pos"),
        ("decoder:\n  preprocessing: [sharpen]\n", 2, "decoder.preprocessing[0]", "inverted, second-scale, binarizer"),
        ("outputs:\n  - type: serial\n", 2, "outputs[0]", "needs device"),
        ("outputs:\n  - type: hid-pos\n", 2, "outputs[0]", "needs device"),
        ("outputs:\n  - { type: hid-pos, device: /dev/hidg1, host_control: maybe }\n", 2, "outputs[0].host_control", "true or false"),
        ("outputs:\n  - { type: serial, device: /dev/ttyS0, baud: 9601 }\n", 2, "outputs[0].baud", "9600"),
        ("outputs:\n  - { type: serial, device: /dev/ttyS0, parity: mark }\n", 2, "outputs[0].parity", "none, even, odd"),
        ("outputs:\n  - { type: serial, device: ttyS0 }\n", 2, "outputs[0].device", "absolute path"),
        ("outputs:\n  - { type: serial, device: /dev/ttyS0 }\n  - { type: keyboard, layout: qwertz }\n", 3, "outputs[1].layout", "no layout 'qwertz'"),
        ("outputs:\n  - { type: keyboard, layout: ch(nonesuch) }\n", 2, "outputs[0].layout", "layout 'ch' has no variant 'nonesuch'"),
        ("outputs:\n  - { type: keyboard, layout: \"de,fr\" }\n", 2, "outputs[0].layout", "not a layout name"),
        ("outputs:\n  - { type: keyboard, layout: ru, gs_key: \"ctrl+]\" }\n", 2, "outputs[0].gs_key", "layout ru has no single key for ']'"),
        ("outputs:\n  - { type: keyboard, gs_key: hyper+x }\n", 2, "outputs[0].gs_key", "not a modifier"),
        ("outputs:\n  - { type: keyboard, suffix: \"\\\\q\" }\n", 2, "outputs[0].suffix", "bad escape"),
        ("outputs:\n  - { type: keyboard, colour: red }\n", 2, "outputs[0].colour", "unknown key"),
    ])

    /// DocumentsConfigTests: the `id` and `boarding_pass` sections.
    static let documents = rows([
        ("documents: no\n", 1, "documents", "true or false"),
        ("id: [issuer]\n", 1, "id", "expected a mapping"),
        (
            "id:\n  fields: [issuer, birthdate]\n", 2, "id.fields[1]",
            "'birthdate' is not a field of a driver's licence or ID card (fields: document_type, issuer,"
        ),
        ("id:\n  fields:\n    - issuer\n    - age_over_16\n", 4, "id.fields[1]", "age_over_16 needs its age in id.age_thresholds (now 18, 21)"),
        ("id:\n  age_thresholds: [19]\n  fields: [age_over_21]\n", 3, "id.fields[0]", "(now 19)"),
        ("id:\n  fields: [nick*]\n", 2, "id.fields[0]", "'nick*' stands for no field of a driver's licence or ID card"),
        ("id:\n  fields: issuer\n", 2, "id.fields", "expected a list"),
        ("id:\n  raw: yes\n", 2, "id.raw", "true or false"),
        ("id:\n  age_thresholds: []\n", 2, "id.age_thresholds", "at least one age"),
        ("id:\n  age_thresholds: [18, 200]\n", 2, "id.age_thresholds[1]", "out of range 1...150"),
        ("id:\n  age_thresholds: [21, 21]\n", 2, "id.age_thresholds[1]", "21 is given twice"),
        ("id:\n  age_thresholds: 21\n", 2, "id.age_thresholds", "expected a list"),
        ("id:\n  enabled: false\n", 2, "id.enabled", "unknown key (known here: age_thresholds, fields, raw)"),
        ("boarding_pass:\n  fields: [passenger_name, seat]\n", 2, "boarding_pass.fields[1]", "'seat' is a field of each leg: name legs"),
        ("boarding_pass:\n  fields: [age_over_*]\n", 2, "boarding_pass.fields[0]", "stands for no field of a boarding pass"),
        ("boarding_pass:\n  age_thresholds: [18]\n", 2, "boarding_pass.age_thresholds", "unknown key (known here: fields, raw)"),
    ])

    /// FormattingConfigTests: GTIN options, formatting rules and their actions, `pack`.
    static let formatting = rows([
        ("socket:\n  gtin:\n    upca: 14\n", 3, "socket.gtin.upca", "12, 13"),
        ("socket:\n  gtin:\n    check_digit: drop\n", 3, "socket.gtin.check_digit", "keep, strip"),
        ("socket:\n  gtin:\n    ean13: 14\n", 3, "socket.gtin.ean13", "unknown key"),
        ("socket:\n  rules:\n    - when: { symbology: ean99 }\n      do: drop\n", 3, "socket.rules[0].when.symbology", "unknown symbology"),
        ("socket:\n  rules:\n    - when: { length: [9, 3] }\n      do: drop\n", 3, "socket.rules[0].when.length", "above max"),
        ("socket:\n  rules:\n    - when: { regex: \"a(b\" }\n      do: drop\n", 3, "socket.rules[0].when.regex", "regular expression"),
        (
            "socket:\n  rules:\n    - when: { regex: \"(a\" }\n      do: drop\n", 3, "socket.rules[0].when.regex",
            "not a regular expression RE2 accepts: missing ): (a"
        ),
        ("socket:\n  rules:\n    - when: { regex: \"^(?!TEST)\" }\n      do: drop\n", 3, "socket.rules[0].when.regex", "(RE2 has no lookahead)"),
        (
            "socket:\n  rules:\n    - do:\n        - replace:\n            pattern: \"(a)\\\\1\"\n", 5, "socket.rules[0].do[0].replace.pattern",
            "invalid escape sequence: \\1 (RE2 has no backreferences)"
        ),
        ("socket:\n  rules:\n    - when: { ai: \"999\" }\n      do: drop\n", 3, "socket.rules[0].when.ai", "not a GS1 application identifier"),
        ("socket:\n  rules:\n    - when: { colour: red }\n      do: drop\n", 3, "socket.rules[0].when.colour", "unknown key"),
        ("socket:\n  rules:\n    - when: { symbology: ean13 }\n", 3, "socket.rules[0]", "needs do"),
        ("socket:\n  rules:\n    - do: [explode]\n", 3, "socket.rules[0].do[0]", "not an action"),
        ("socket:\n  rules:\n    - do:\n        - rotate: 3\n", 4, "socket.rules[0].do[0].rotate", "unknown action"),
        ("socket:\n  rules:\n    - do: [strip_leading: x]\n", 3, "socket.rules[0].do[0].strip_leading", "whole number"),
        ("socket:\n  rules:\n    - do: [take_ai: \"10\"]\n", 3, "socket.rules[0].do[0]", "needs when: {ai: '10'}"),
        ("socket:\n  rules:\n    - do: [pad: { length: 8, with: ab }]\n", 3, "socket.rules[0].do[0].pad.with", "one character"),
        ("socket:\n  rules:\n    - do: [replace: { with: x }]\n", 3, "socket.rules[0].do[0].replace", "needs pattern"),
        ("socket:\n  unmatched: keep\n", 2, "socket.unmatched", "send, drop"),
        (
            "socket:\n  rules:\n    - when: { document: passport }\n      do: drop\n", 3, "socket.rules[0].when.document",
            "'passport' is not one of id, boarding_pass"
        ),
        ("socket:\n  rules:\n    - do:\n        - id_template: { sex: M/F }\n", 4, "socket.rules[0].do[0].id_template", "needs fields"),
        (
            "socket:\n  rules:\n    - do:\n        - id_template:\n            fields:\n              - family_name\n              - dob\n", 7,
            "socket.rules[0].do[0].id_template.fields[1]", "'dob' is not a field of a licence, ID card or boarding pass (fields: document_type,"
        ),
        (
            "socket:\n  rules:\n    - when: { document: id }\n      do: [id_template: { fields: [seat] }]\n", 4,
            "socket.rules[0].do[0].id_template.fields[0]", "'seat' is not a field of a driver's licence or ID card"
        ),
        (
            "socket:\n  rules:\n    - when: { document: boarding_pass }\n      do: [id_template: { fields: [seat, birth_date] }]\n", 4,
            "socket.rules[0].do[0].id_template.fields[1]", "'birth_date' is not a field of a boarding pass (fields: format_code,"
        ),
        ("socket:\n  rules:\n    - do: [id_template: { fields: [age_over_*] }]\n", 3, "socket.rules[0].do[0].id_template.fields[0]", "name each one"),
        (
            "socket:\n  rules:\n    - do: [id_template: { fields: [age_over_30] }]\n", 3, "socket.rules[0].do[0].id_template.fields[0]",
            "age_over_30 needs its age in id.age_thresholds (now 18, 21)"
        ),
        ("socket:\n  rules:\n    - do: [id_template: { fields: [] }]\n", 3, "socket.rules[0].do[0].id_template.fields", "at least one field"),
        (
            "socket:\n  rules:\n    - do:\n        - id_template:\n            fields: [birth_date]\n            date_format: DATE\n", 6,
            "socket.rules[0].do[0].id_template.date_format", "'DATE' holds none of YYYY, YY, MM, DD"
        ),
        (
            "socket:\n  rules:\n    - do: [id_template: { fields: [sex], sex: male }]\n", 3, "socket.rules[0].do[0].id_template.sex",
            "'male' is not one of M/F, 1/2"
        ),
        (
            "socket:\n  rules:\n    - do: [id_template: { fields: [sex], colour: red }]\n", 3, "socket.rules[0].do[0].id_template.colour",
            "unknown key (known here: date_format, fields, separator, sex, terminator)"
        ),
        (
            "outputs:\n  - type: serial\n    device: /dev/ttyS0\n    rules:\n      - do: [id_template: { fields: [age], terminator: \"\\\\q\" }]\n", 5,
            "outputs[0].rules[0].do[0].id_template.terminator", "bad escape"
        ),
        (
            "outputs:\n  - type: serial\n    device: /dev/ttyS0\n    rules:\n      - do: [suffix: \"\\\\q\"]\n", 5, "outputs[0].rules[0].do[0].suffix",
            "bad escape"
        ),
        ("pack:\n  prefer: newest\n", 2, "pack.prefer", "more-data, linear"),
        ("pack:\n  window: 9\n", 2, "pack.window", "out of range"),
    ])

    /// MQTTConfigTests: the `mqtt` section.
    static let mqtt = rows([
        ("mqtt:\n  host: \"broker lan\"\n", 2, "mqtt.host", "host name"),
        ("mqtt:\n  port: 70000\n", 2, "mqtt.port", "out of range"),
        ("mqtt:\n  device_id: lane/3\n", 2, "mqtt.device_id", "topic level"),
        ("mqtt:\n  topic_prefix: shop/#\n", 2, "mqtt.topic_prefix", "not a topic prefix"),
        ("mqtt:\n  qos: 2\n", 2, "mqtt.qos", "out of range"),
        ("mqtt:\n  password_file: secret.txt\n", 2, "mqtt.password_file", "absolute path"),
        ("mqtt:\n  commands: [status, snapshot]\n", 2, "mqtt.commands[1]", "is not one of"),
        ("mqtt:\n  host: b\n  cert_file: /c.pem\n", 2, "mqtt", "go together"),
        ("mqtt:\n  home_assistant: yes\n", 2, "mqtt.home_assistant", "true or false"),
        ("mqtt:\n  spool_size: 10\n", 2, "mqtt.spool_size", "out of range"),
        ("mqtt:\n  broker: b\n", 2, "mqtt.broker", "unknown key"),
    ])

    /// WebConfigTests: the installer's console.
    static let web = rows([
        ("web:\n  listen: lane-3.lan:8080\n", 2, "web.listen", "IP address"),
        ("web:\n  listen: 127.0.0.1\n", 2, "web.listen", "HOST:PORT"),
        ("web:\n  listen: 127.0.0.1:0\n", 2, "web.listen", "HOST:PORT"),
        ("web:\n  listen: ::1:8080\n", 2, "web.listen", "HOST:PORT"),
        ("web:\n  fps: 4\n  listen: 0.0.0.0:8443\n", 3, "web.listen", "TLS (cert_file and key_file) and a sign-in file"),
        ("web:\n  listen: \"[::]:8443\"\n  token_file: /etc/t\n", 2, "web.listen", "needs TLS (cert_file and key_file),"),
        ("web:\n  listen: 10.0.0.7:8443\n  cert_file: /c.pem\n  key_file: /c.key\n", 2, "web.listen", "needs a sign-in file (password_file or token_file)"),
        ("web:\n  cert_file: /c.pem\n", 2, "web", "go together"),
        ("web:\n  password_file: web-passwords\n", 2, "web.password_file", "absolute path"),
        ("web:\n  control_users: [installer, \"a:b\"]\n", 2, "web.control_users[1]", "user name"),
        ("web:\n  fps: 30\n", 2, "web.fps", "out of range 1...15"),
        ("web:\n  width: 2000\n", 2, "web.width", "out of range 160...1280"),
        ("web:\n  port: 8080\n", 2, "web.port", "unknown key"),
    ])
}
