import CV4L2
import Logging
import SystemPackage

extension V4L2Camera {
    /// Sets V4L2 controls by the names v4l2-ctl prints; a control the camera lacks is a warning.
    static func applyControls(_ device: V4L2Device, _ wanted: [String: Double], logger: Logger) {
        guard !wanted.isEmpty else { return }
        let available = listControls(device)
        var refused: [(name: String, id: UInt32, value: Int32)] = []
        for (name, value) in wanted.sorted(by: { $0.key < $1.key }) {
            guard let control = available[name] else {
                logger.warning("camera has no control '\(name)'; ignored", metadata: ["available": "\(available.keys.sorted().joined(separator: ","))"])
                continue
            }
            // The config file holds V4L2 values to whole numbers within Int32.
            let number = Int32(exactly: value.rounded()) ?? (value < 0 ? .min : .max)
            if (try? set(device, id: control.id, value: number)) != nil {
                logger.info("camera control \(name) = \(number)")
            } else {
                refused.append((name, control.id, number))
            }
        }
        // A control is refused (EACCES) while the automatic mode that drives it is on: uvcvideo
        // takes focus_absolute only once focus_automatic_continuous is 0, and names do not sort
        // that way. So what was refused is tried once more, after every mode is set.
        for control in refused {
            do {
                try set(device, id: control.id, value: control.value)
                logger.info("camera control \(control.name) = \(control.value)")
            } catch {
                logger.warning("camera control \(control.name) = \(control.value) refused: \(error)")
            }
        }
    }

    private static func set(_ device: V4L2Device, id: UInt32, value: Int32) throws(Errno) {
        var setting = v4l2_control(id: id, value: value)
        try device.ioctl(KS_VIDIOC_S_CTRL, &setting)
    }

    /// The camera's controls by v4l2-ctl name.
    static func listControls(_ device: V4L2Device) -> [String: v4l2_queryctrl] {
        var controls: [String: v4l2_queryctrl] = [:]
        var query = v4l2_queryctrl()
        query.id = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        while (try? device.ioctl(KS_VIDIOC_QUERYCTRL, &query)) != nil {
            if query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0, query.type != V4L2_CTRL_TYPE_CTRL_CLASS.rawValue {
                let label = withUnsafeBytes(of: query.name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                controls[controlName(label)] = query
            }
            query.id |= UInt32(V4L2_CTRL_FLAG_NEXT_CTRL)
        }
        return controls
    }

    /// v4l2-ctl's naming: lower case, each run of other characters one underscore, none at the ends.
    static func controlName(_ label: String) -> String {
        var name = ""
        for character in label.lowercased() {
            if character.isLetter || character.isNumber {
                name.append(character)
            } else if !name.isEmpty, name.last != "_" {
                name.append("_")
            }
        }
        while name.last == "_" { name.removeLast() }
        return name
    }
}
