import Foundation
import ImageFiles
import Imaging
import ScannerTestSupport
import Testing

/// Issue #35: a keyboard wedge with an `id_template` rule, through the real daemon and the
/// emulated uinput device: the host types the licence's chosen fields, Tab between them, and
/// nothing else of the licence.
extension OutputTests {
    @Test func aWedgeTemplateTypesTheChosenFieldsOfALicence() throws {
        let device = bench.directory + "/keyboard-licence"
        let daemon = try start(
            outputs: """
                  - type: keyboard
                    backend: uinput
                    device: \(device)
                    key_delay: 0
                    rules:
                      - when: { document: id }
                        do:
                          - id_template: { fields: [family_name, given_name, birth_date, sex], date_format: "MM/DD/YYYY", separator: "\\t" }
                """,
            extra: "viewport:\n  rect: [0, 0, 1, 1]\n",
            environment: Self.uinput(device: device))
        let client = try daemon.connect()
        let frame = Barcodes.centred(try ImageFile.read(path: KioskDocuments.licenceImage()), in: Size(width: 640, height: 480))
        try bench.show(frame, with: ["background": "200"])
        let scan = client.waitFor(timeout: 20) { $0["type"] as? String == "scan" }.match
        #expect(scan?["raw_withheld"] as? Bool == true)
        #expect(waitUntilSent(client))
        let strokes = HostKeyboard.strokes(uinputEvents: try Data(contentsOf: URL(fileURLWithPath: device + ".events")))
        // The wedge's Enter after the template; the Tabs are the template's own, which the wedge's
        // control-character policy (drop) leaves alone.
        #expect(try HostKeyboard.typed([strokes], layout: "us").first == "SAMPLE\tMICHAEL\t06/06/1986\tM\r", "strokes: \(strokes)")
    }
}
