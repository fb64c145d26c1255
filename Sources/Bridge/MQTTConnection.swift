import CMosquitto
import Codes

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to the broker through libmosquitto, driven by `loop()` from the bridge's thread:
/// every callback runs on that thread, inside `loop()`. A lost connection is not reused: the bridge
/// makes a new one, so libmosquitto never resends on its own what the spool will send again.
final class MQTTConnection {
    private let handle: OpaquePointer
    /// CONNACK: 0 when the broker accepted us, else its reason (`mosquitto_connack_string`).
    var onConnect: (Int32) -> Void = { _ in }
    var onDisconnect: (Int32) -> Void = { _ in }
    /// The broker has a QoS 1 message (PUBACK), or a QoS 0 one was written.
    var onPublish: (Int32) -> Void = { _ in }
    var onMessage: (String, [UInt8]) -> Void = { _, _ in }
    /// libmosquitto's own log lines: the TLS library's reason for a failed handshake comes this way.
    var onLog: (String) -> Void = { _ in }

    private static let library: Void = { mosquitto_lib_init() }()

    /// A client named `clientID` with `will` as its last will (retained, QoS 1), and the config's
    /// credentials and TLS files; throws when a file cannot be used, naming it.
    init(clientID: String, config: MQTTSettings, will: (topic: String, payload: String)) throws(BridgeError) {
        _ = Self.library
        guard let handle = mosquitto_new(clientID, true, nil) else { throw BridgeError("libmosquitto: cannot make a client (out of memory)") }
        self.handle = handle
        let me = Unmanaged.passUnretained(self).toOpaque()
        mosquitto_user_data_set(handle, me)
        mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311))
        mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_connect_callback_set(handle) { _, context, rc in MQTTConnection.from(context).onConnect(rc) }
        mosquitto_disconnect_callback_set(handle) { _, context, rc in MQTTConnection.from(context).onDisconnect(rc) }
        mosquitto_publish_callback_set(handle) { _, context, mid in MQTTConnection.from(context).onPublish(mid) }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let message = message?.pointee, let topic = message.topic else { return }
            let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen))) } ?? []
            MQTTConnection.from(context).onMessage(String(cString: topic), payload)
        }
        mosquitto_log_callback_set(handle) { _, context, level, text in
            guard let text, level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0 else { return }
            MQTTConnection.from(context).onLog(String(cString: text))
        }
        try check(mosquitto_will_set(handle, will.topic, Int32(will.payload.utf8.count), will.payload, 1, true), "last will")
        if let username = config.username {
            try check(mosquitto_username_pw_set(handle, username, config.password), "username")
        }
        if let ca = config.caFile {
            let rc = mosquitto_tls_set(handle, ca, nil, config.certFile, config.keyFile, nil)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw BridgeError(
                    "TLS files not usable: ca_file \(ca)\(config.certFile.map { ", cert_file \($0), key_file \(config.keyFile ?? "")" } ?? "") (\(Self.describe(rc)))"
                )
            }
        }
    }

    deinit { mosquitto_destroy(handle) }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MQTTConnection {
        Unmanaged<MQTTConnection>.fromOpaque(context!).takeUnretainedValue()
    }

    private func check(_ rc: Int32, _ what: String) throws(BridgeError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw BridgeError("\(what): \(Self.describe(rc))") }
    }

    /// Opens the TCP connection (and starts TLS); CONNACK comes later, through `loop()`.
    func connect(host: String, port: Int, keepalive: Int) -> Int32 {
        mosquitto_connect(handle, host, Int32(port), Int32(keepalive))
    }

    /// Reads and writes what is due, waiting at most `milliseconds` for the broker or for `wake`
    /// to become readable (its bytes are drained: new reads to publish); not success when the
    /// connection is lost. libmosquitto's external-loop calls (`mosquitto_loop_read`, `_write`,
    /// `_misc`) around our own poll, so that a read is published the moment it comes, not at the
    /// end of a select timeout.
    func loop(milliseconds: Int32, wake: Int32) -> Int32 {
        let socket = mosquitto_socket(handle)
        guard socket >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
        var fds = [
            pollfd(fd: socket, events: Int16(POLLIN) | (mosquitto_want_write(handle) ? Int16(POLLOUT) : 0), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        if poll(&fds, 2, milliseconds) < 0 && errno != EINTR { return MOSQ_ERR_ERRNO.rawValue }
        if fds[1].revents != 0 {
            var sink = [UInt8](repeating: 0, count: 256)
            while read(wake, &sink, sink.count) > 0 {}
        }
        if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            let rc = mosquitto_loop_read(handle, 1)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else { return rc }
        }
        if mosquitto_want_write(handle) {
            let rc = mosquitto_loop_write(handle, 1)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else { return rc }
        }
        return mosquitto_loop_misc(handle)
    }

    /// Writes what `publish` queued, without waiting (the bridge publishes, then flushes).
    func flush() -> Int32 {
        guard mosquitto_want_write(handle) else { return MOSQ_ERR_SUCCESS.rawValue }
        return mosquitto_loop_write(handle, 1)
    }

    /// Queues a message; returns its message id, or why the connection does not take it.
    func publish(topic: String, payload: [UInt8], qos: Int, retain: Bool) -> Result<Int32, PublishError> {
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes { mosquitto_publish(handle, &mid, topic, Int32($0.count), $0.baseAddress, Int32(qos), retain) }
        return rc == MOSQ_ERR_SUCCESS.rawValue ? .success(mid) : .failure(PublishError(rc: rc))
    }

    /// libmosquitto's reason for not queueing a message.
    struct PublishError: Error, CustomStringConvertible {
        let rc: Int32
        /// The message itself is at fault (its size, its topic), not the connection: it will never go.
        var refusesMessage: Bool {
            [MOSQ_ERR_PAYLOAD_SIZE, MOSQ_ERR_MALFORMED_UTF8, MOSQ_ERR_INVAL, MOSQ_ERR_OVERSIZE_PACKET, MOSQ_ERR_QOS_NOT_SUPPORTED].contains {
                $0.rawValue == rc
            }
        }
        var description: String { MQTTConnection.describe(rc) }
    }

    func subscribe(_ topic: String, qos: Int) {
        mosquitto_subscribe(handle, nil, topic, Int32(qos))
    }

    func disconnect() {
        mosquitto_disconnect(handle)
    }

    /// A libmosquitto result as words; for `MOSQ_ERR_ERRNO`, the system's reason.
    static func describe(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(rc))
    }

    /// A CONNACK refusal as words.
    static func describeRefusal(_ rc: Int32) -> String {
        String(cString: mosquitto_connack_string(rc))
    }
}
