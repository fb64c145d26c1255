import Synchronization

/// Plays feedback patterns on the buzzer and flash LED, on a task of its own: capture and decoding
/// never wait for a beep. A new pattern replaces the one playing (a read during a beep restarts
/// the beep; beeps are never queued).
final class PatternPlayer: Sendable {
    private let buzzer: Buzzer?
    private let flash: OutputLine?
    private let playing = Mutex<(generation: Int, task: Task<Void, Never>?)>((0, nil))

    init(buzzer: Buzzer?, flash: OutputLine?) {
        self.buzzer = buzzer
        self.flash = flash
    }

    /// Starts `pattern` now, cutting short whatever was playing.
    func play(_ pattern: FeedbackPattern) {
        guard buzzer != nil || flash != nil else { return }
        playing.withLock { state in
            state.task?.cancel()
            state.generation += 1
            let generation = state.generation
            state.task = Task.detached(priority: .high) { [self] in await run(pattern, generation: generation) }
        }
    }

    /// Stops any pattern and leaves both lines inactive.
    func stop() {
        playing.withLock { state in
            state.task?.cancel()
            state.generation += 1
            buzzer?.set(false)
            flash?.set(false)
        }
    }

    private func run(_ pattern: FeedbackPattern, generation: Int) async {
        let clock = ContinuousClock()
        var start = clock.now
        for index in 0..<pattern.repeatCount {
            guard drive(generation, beep: pattern.beep > 0, flash: pattern.flash > 0) else { return }
            // Each line goes off at its own time, measured from the same start.
            let ends = [(pattern.beep, true), (pattern.flash, false)].filter { $0.0 > 0 }.sorted { $0.0 < $1.0 }
            for (seconds, isBuzzer) in ends {
                guard (try? await clock.sleep(until: start + .seconds(seconds))) != nil else { return }
                guard drive(generation, beep: isBuzzer ? false : nil, flash: isBuzzer ? nil : false) else { return }
            }
            if index < pattern.repeatCount - 1 {
                start = start + .seconds(max(pattern.beep, pattern.flash) + pattern.gap)
                guard (try? await clock.sleep(until: start)) != nil else { return }
            }
        }
    }

    /// Sets the lines (nil: unchanged) if `generation` is still the pattern playing.
    private func drive(_ generation: Int, beep: Bool?, flash on: Bool?) -> Bool {
        playing.withLock { state in
            guard state.generation == generation else { return false }
            if let beep { buzzer?.set(beep) }
            if let on { flash?.set(on) }
            return true
        }
    }
}
