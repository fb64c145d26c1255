import Codes
import FoundationEssentials

/// Home Assistant MQTT discovery (home-assistant.io, "MQTT Discovery"): retained config messages
/// under `homeassistant/<component>/<node>/<object>/config` that make the scanner a device with a
/// sensor of the last scan, its torch (a switch when the broker may send `torch`, else a binary
/// sensor), and availability from the bridge's topic and last will.
enum HomeAssistant {
    static func discovery(settings: MQTTSettings, topics: Topics) -> [(topic: String, payload: [UInt8])] {
        let node = "kiosk_scanner_" + String(settings.deviceID.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        let device = Device(identifiers: [node], name: "kiosk-scanner \(settings.deviceID)", manufacturer: "kiosk-scanner", model: "barcode scanner")
        var entities: [(String, Entity)] = [
            (
                "sensor",
                Entity(
                    name: "Last scan", uniqueID: node + "_scan", stateTopic: topics.scan, valueTemplate: "{{ value_json.text }}",
                    jsonAttributesTopic: topics.scan, availabilityTopic: topics.availability, device: device, icon: "mdi:barcode-scan")
            )
        ]
        var torch = Entity(
            name: "Torch", uniqueID: node + "_torch", stateTopic: topics.state,
            valueTemplate: "{{ 'ON' if value_json.scanner.torch else 'OFF' }}", availabilityTopic: topics.availability, device: device,
            icon: "mdi:flashlight")
        if settings.commands.contains("torch") {
            torch.commandTopic = topics.command
            torch.payloadOn = "torch on"
            torch.payloadOff = "torch off"
            torch.stateOn = "ON"
            torch.stateOff = "OFF"
            entities.append(("switch", torch))
        } else {
            entities.append(("binary_sensor", torch))
        }
        let encoder = JSONEncoder.forEvents()
        return entities.compactMap { component, entity in
            guard let payload = try? encoder.encode(entity) else { return nil }
            return ("homeassistant/\(component)/\(node)/\(entity.uniqueID.dropFirst(node.count + 1))/config", Array(payload))
        }
    }

    struct Device: Encodable {
        let identifiers: [String]
        let name: String
        let manufacturer: String
        let model: String
    }

    struct Entity: Encodable {
        let name: String
        let uniqueID: String
        let stateTopic: String
        let valueTemplate: String
        var jsonAttributesTopic: String?
        let availabilityTopic: String
        let device: Device
        let icon: String
        var commandTopic: String?
        var payloadOn: String?
        var payloadOff: String?
        var stateOn: String?
        var stateOff: String?

        enum CodingKeys: String, CodingKey {
            case name
            case uniqueID = "unique_id"
            case stateTopic = "state_topic"
            case valueTemplate = "value_template"
            case jsonAttributesTopic = "json_attributes_topic"
            case availabilityTopic = "availability_topic"
            case device, icon
            case commandTopic = "command_topic"
            case payloadOn = "payload_on"
            case payloadOff = "payload_off"
            case stateOn = "state_on"
            case stateOff = "state_off"
        }
    }
}
