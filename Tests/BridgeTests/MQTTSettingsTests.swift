import Bridge
import ConfigFile
import ConfigReading
import Testing

@testable import Bridge

#if canImport(Glibc)
    import Glibc
#endif

/// Where the spool goes when the config names none: where a Linux program keeps its state, so
/// that the bridge starts under systemd, as root and as a user running it by hand.
@Suite struct MQTTSettingsTests {
    static let builtIn = MQTTConfig().spoolDirectory

    func spool(_ environment: [String: String], userID: uid_t = 1000, configured: String = builtIn) -> String {
        MQTTSettings.spoolDirectory(configured: configured, environment: environment, userID: userID)
    }

    @Test func aConfiguredSpoolIsKeptWherever() {
        #expect(spool(["STATE_DIRECTORY": "/var/lib/kiosk-scanner", "HOME": "/home/ops"], configured: "/srv/spool") == "/srv/spool")
    }

    @Test func underSystemdTheUnitsStateDirectory() {
        #expect(spool(["STATE_DIRECTORY": "/var/lib/kiosk-scanner", "HOME": "/"]) == "/var/lib/kiosk-scanner/mqtt-spool")
        #expect(spool(["STATE_DIRECTORY": "/var/lib/private/ks:/var/lib/other"], userID: 0) == "/var/lib/private/ks/mqtt-spool")
    }

    @Test func rootByHandKeepsTheSystemsStateDirectory() {
        #expect(spool(["HOME": "/root", "XDG_STATE_HOME": "/root/.state"], userID: 0) == Self.builtIn)
    }

    @Test func aUserByHandGetsTheirOwnStateDirectory() {
        #expect(spool(["HOME": "/home/ops"]) == "/home/ops/.local/state/kiosk-scanner/mqtt-spool")
        #expect(spool(["HOME": "/home/ops", "XDG_STATE_HOME": "/home/ops/state"]) == "/home/ops/state/kiosk-scanner/mqtt-spool")
        // A relative XDG_STATE_HOME is ignored, as the spec says; with no home at all, the default
        // stays and its error names mqtt.spool_dir.
        #expect(spool(["HOME": "/home/ops", "XDG_STATE_HOME": "state"]) == "/home/ops/.local/state/kiosk-scanner/mqtt-spool")
        #expect(spool([:]) == Self.builtIn)
    }
}
