import Foundation
import ScannerTestSupport
import Testing

/// `kiosk-scanner scan` on kiosk documents drawn by zint: the fields, never the raw data.
@Suite struct ScanDocumentTests {
    @Test func jsonHasTheFieldsAndNoRawData() throws {
        let licence = try KioskDocuments.licenceImage(scale: 2)
        let pass = try KioskDocuments.boardingPassImage()
        let result = try Tool.capture(Tool.scannerBinary, ["scan", "--json", licence, pass])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        try #require(objects.count == 2, "\(result.stdout)")
        let id = try #require(objects[0]["id"] as? [String: Any], "\(objects[0])")
        #expect(Set(id.keys) == KioskDocuments.idFields && id["issuer"] as? String == "Virginia" && id["expired"] as? Bool == true, "\(id)")
        let boardingPass = try #require(objects[1]["boarding_pass"] as? [String: Any], "\(objects[1])")
        #expect(Set(boardingPass.keys) == KioskDocuments.boardingPassFields && boardingPass["passenger_name"] as? String == "DESMARAIS/LUC")
        for object in objects {
            #expect(object["text"] == nil && (object["bytes"] as? String)?.isEmpty != false && object["raw_withheld"] as? Bool == true, "\(object)")
        }
        let leaked = KioskDocuments.licenceSecrets.filter { result.stdout.contains($0) || result.stderr.contains($0) }
        #expect(leaked.isEmpty && !result.stdout.contains(KioskDocuments.boardingPass), "\(leaked): \(result.stdout)")
    }

    @Test func textShowsTheFieldsAsPairs() throws {
        let result = try Tool.capture(Tool.scannerBinary, ["scan", try KioskDocuments.licenceImage(scale: 2), try KioskDocuments.boardingPassImage()])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(result.stdout)")
        #expect(lines[0] == "PDF417:issuer=Virginia age_over_18=true age_over_21=true expired=true")
        #expect(lines[1].hasPrefix("Aztec:legs_count=1 passenger_name=DESMARAIS/LUC") && lines[1].contains("legs=1"), "\(lines[1])")
        #expect(KioskDocuments.licenceSecrets.allSatisfy { !result.stdout.contains($0) })
    }

    /// An output that would send a licence as nothing is named by check-config (and logged at the
    /// daemon's start); one with an id_template, or a config that lets raw data out, is not.
    @Test func checkConfigNotesAnOutputThatWouldSendDocumentsAsNothing() throws {
        let directory = try TemporaryDirectory.shared.directory("document-notes")
        func check(_ text: String) throws -> String {
            let path = directory + "/\(UUID().uuidString.prefix(6)).conf"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try Tool.capture(Tool.scannerBinary, ["check-config", path])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        let serial = "outputs:\n  - type: serial\n    device: /dev/ttyS0\n"
        let bare = try check(serial)
        #expect(bare.contains("note: outputs[0] (serial /dev/ttyS0) sends driver's licences and ID cards and boarding passes as nothing"), "\(bare)")
        let templated = try check(serial + "    rules:\n      - when: { document: id }\n        do: [id_template: { fields: [age] }]\n")
        #expect(!templated.contains("note:"), "\(templated)")
        let raw = try check(serial + "id:\n  raw: true\nboarding_pass:\n  raw: true\n")
        #expect(!raw.contains("note:"), "\(raw)")
    }
}
