extension Page {
    /// /app.js: the live view, the viewport editor, the controls, health and reads. Text from the
    /// daemon (codes, reads, errors) goes into the page only through `textContent` and canvas
    /// `fillText`, never as HTML. After drawing a view it asks for the next (`{"type":"next"}`):
    /// the server sends one view at a time.
    static let script = #"""
        "use strict";
        (() => {
          const $ = (id) => document.getElementById(id);
          const canvas = $("live");
          const pen = canvas.getContext("2d");
          const hour = 3600;
          let socket = null;
          let retry = 1000;
          let lastView = null;
          let lastImage = null;
          let frameTimes = [];
          let drag = null;
          const reads = [];
          const samples = [];

          function notice(text) { $("notice").textContent = text || ""; $("notice").hidden = !text; }
          function badge(up, text) { $("connection").textContent = text; $("connection").className = "badge " + (up ? "up" : "down"); }
          function send(message) { if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message)); }

          function connect() {
            const scheme = location.protocol === "https:" ? "wss:" : "ws:";
            socket = new WebSocket(scheme + "//" + location.host + "/ws");
            socket.onopen = () => { retry = 1000; badge(true, "live"); };
            socket.onmessage = (event) => {
              let message;
              try { message = JSON.parse(event.data); } catch (error) { return; }
              receive(message);
            };
            socket.onclose = () => {
              badge(false, "reconnecting");
              fetch("/api/health").then((response) => {
                if (response.status === 401) { location.assign("/login"); return; }
                setTimeout(connect, retry);
                retry = Math.min(retry * 2, 30000);
              }, () => setTimeout(connect, retry));
            };
          }

          function receive(message) {
            switch (message.type) {
            case "hello":
              $("user").textContent = message.user + (message.control ? "" : " (view only)");
              choose("fps", message.fps);
              choose("width", message.width);
              break;
            case "view": draw(message); break;
            case "outcome": addRead(message); break;
            case "state": showState(message); break;
            case "control":
              $("ctl-result").textContent = message.command + ": " + (message.ok ? "ok" : message.error);
              $("ctl-result").className = message.ok ? "ok" : "problem";
              break;
            case "health":
              if (message.sample) addSample(message.sample, true);
              daemonProblem(message.daemon);
              break;
            case "notice": notice(message.text); break;
            }
          }

          function choose(id, value) {
            const select = $(id);
            const text = String(value);
            if (![...select.options].some((option) => option.text === text)) {
              const option = document.createElement("option");
              option.text = text;
              select.add(option);
            }
            select.value = text;
          }

          // The live view: the image, the daemon's viewport, each code's outline and text.
          function draw(view) {
            const image = new Image();
            const next = () => send({ type: "next" });
            image.onload = () => {
              if (canvas.width !== view.width || canvas.height !== view.height) { canvas.width = view.width; canvas.height = view.height; }
              lastView = view;
              lastImage = image;
              paint();
              showCodes(view.codes || []);
              countFrame(view);
              next();
            };
            image.onerror = next;
            image.src = "data:image/jpeg;base64," + view.jpeg;
          }

          function paint() {
            if (!lastView || !lastImage) return;
            const view = lastView;
            pen.drawImage(lastImage, 0, 0, view.width, view.height);
            if (view.viewport) {
              pen.setLineDash([6, 4]);
              pen.strokeStyle = "#ffd400";
              pen.lineWidth = 2;
              pen.strokeRect(view.viewport.x, view.viewport.y, view.viewport.width, view.viewport.height);
              pen.setLineDash([]);
            }
            pen.font = "bold 14px system-ui, sans-serif";
            for (const code of view.codes || []) {
              const corners = code.corners || [];
              if (corners.length < 2) continue;
              pen.strokeStyle = "#00e060";
              pen.lineWidth = 3;
              pen.beginPath();
              pen.moveTo(corners[0][0], corners[0][1]);
              for (const corner of corners.slice(1)) pen.lineTo(corner[0], corner[1]);
              pen.closePath();
              pen.stroke();
              const label = String(code.text).slice(0, 60);
              const x = Math.min(...corners.map((c) => c[0]));
              const y = Math.max(14, Math.min(...corners.map((c) => c[1])) - 4);
              pen.fillStyle = "#000a";
              pen.fillRect(x - 2, y - 14, pen.measureText(label).width + 4, 18);
              pen.fillStyle = "#00ff70";
              pen.fillText(label, x, y);
            }
            if (drag) {
              pen.strokeStyle = "#00c8ff";
              pen.lineWidth = 2;
              const r = normalised(drag);
              pen.strokeRect(r.x * view.width, r.y * view.height, r.width * view.width, r.height * view.height);
            }
          }

          function showCodes(codes) {
            $("live-codes").replaceChildren(...codes.map((code) => {
              const item = document.createElement("li");
              item.textContent = String(code.text);
              item.title = String(code.symbology);
              item.dataset.symbology = String(code.symbology);
              return item;
            }));
          }

          function countFrame(view) {
            const now = performance.now();
            frameTimes.push(now);
            frameTimes = frameTimes.filter((time) => now - time < 3000);
            const rate = frameTimes.length > 1 ? (frameTimes.length - 1) * 1000 / (now - frameTimes[0]) : 0;
            $("live-rate").textContent = rate.toFixed(1) + " fps";
            $("live-size").textContent = view.width + "x" + view.height + " of " + view.frame_width + "x" + view.frame_height;
          }

          // The viewport editor: drag on the image, or type the numbers; the server judges them.
          function point(event) {
            const box = canvas.getBoundingClientRect();
            const clamp = (value) => Math.min(1, Math.max(0, value));
            return { x: clamp((event.clientX - box.left) / box.width), y: clamp((event.clientY - box.top) / box.height) };
          }
          function normalised(d) {
            return { x: Math.min(d.x0, d.x1), y: Math.min(d.y0, d.y1), width: Math.abs(d.x1 - d.x0), height: Math.abs(d.y1 - d.y0) };
          }
          canvas.addEventListener("mousedown", (event) => { const p = point(event); drag = { x0: p.x, y0: p.y, x1: p.x, y1: p.y, moving: true }; });
          canvas.addEventListener("mousemove", (event) => {
            if (!drag || !drag.moving) return;
            const p = point(event);
            drag.x1 = p.x;
            drag.y1 = p.y;
            paint();
          });
          window.addEventListener("mouseup", () => {
            if (!drag || !drag.moving) return;
            drag.moving = false;
            const r = normalised(drag);
            $("vp-x").value = r.x.toFixed(3);
            $("vp-y").value = r.y.toFixed(3);
            $("vp-w").value = r.width.toFixed(3);
            $("vp-h").value = r.height.toFixed(3);
            check();
          });
          function check() {
            const body = { x: Number($("vp-x").value), y: Number($("vp-y").value), width: Number($("vp-w").value), height: Number($("vp-h").value) };
            fetch("/api/viewport", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
              .then((response) => response.json())
              .then((verdict) => {
                $("viewport-lines").textContent = verdict.lines;
                $("viewport-verdict").textContent = verdict.ok ? "check-config takes these lines: paste them into the config file" : verdict.error;
                $("viewport-verdict").className = verdict.ok ? "ok" : "problem";
              }, (error) => { $("viewport-verdict").textContent = String(error); });
          }
          $("vp-check").addEventListener("click", check);

          // Settings and controls go to the server over the stream.
          for (const id of ["fps", "width"]) {
            $(id).addEventListener("change", () => send({ type: "settings", fps: Number($("fps").value), width: Number($("width").value) }));
          }
          for (const button of document.querySelectorAll("button[data-command]")) {
            button.addEventListener("click", () => {
              $("ctl-result").textContent = button.dataset.command + ": ...";
              $("ctl-result").className = "";
              send({ type: "control", command: button.dataset.command });
            });
          }

          // Reads, newest first, the last 50.
          function addRead(outcome) {
            reads.unshift({ time: new Date().toLocaleTimeString(), ...outcome });
            reads.length = Math.min(reads.length, 50);
            $("reads").replaceChildren(...reads.map((read) => {
              const row = document.createElement("tr");
              row.className = String(read.outcome);
              for (const value of [read.time, read.symbology, read.text, read.outcome, read.reason || ""]) {
                const cell = document.createElement("td");
                cell.textContent = String(value ?? "");
                row.append(cell);
              }
              return row;
            }));
          }

          // Health: the state as it changes, the samples as they come, an hour of charts.
          function showState(state) {
            $("health-camera").textContent = state.camera + (state.detail ? " (" + state.detail + ")" : "");
            $("health-torch").textContent = state.torch + " (" + state.torch_mode + ")";
            $("health-mode").textContent = state.mode + (state.paused ? ", paused" : "");
          }
          function daemonProblem(text) { $("health-daemon").textContent = text || ""; $("health-daemon").hidden = !text; }
          function number(value, digits) { return value === null || value === undefined ? "-" : Number(value).toFixed(digits); }
          function addSample(sample, redraw) {
            samples.push(sample);
            while (samples.length && samples[0].at < sample.at - hour) samples.shift();
            showState({ camera: sample.camera, torch: sample.torch, torch_mode: sample.torch_mode, mode: sample.mode, paused: sample.paused });
            $("health-decode").textContent = number(sample.decode_ms_p50, 1) + " / " + number(sample.decode_ms_p99, 1) + " ms";
            $("health-reads").textContent = number(sample.reads_per_minute, 1);
            const dropped = Object.entries(sample.dropped || {}).map(([reason, count]) => reason + " " + count);
            $("health-dropped").textContent = dropped.length ? dropped.join(", ") : "none";
            $("health-gated").textContent = sample.frames_gated + (sample.gated_percent === null || sample.gated_percent === undefined ? "" : " (" + number(sample.gated_percent, 0) + "% now)");
            $("health-watchers").textContent = sample.watchers === null || sample.watchers === undefined ? "-" : String(sample.watchers);
            if (redraw) charts();
          }
          function chart(id, lines) {
            const board = $(id);
            const ink = board.getContext("2d");
            ink.clearRect(0, 0, board.width, board.height);
            if (!samples.length) return;
            const end = samples[samples.length - 1].at;
            const values = lines.flatMap((line) => samples.map(line.value).filter((v) => v !== null && v !== undefined));
            if (!values.length) return;
            const top = Math.max(1e-9, ...values);
            ink.fillStyle = "#555";
            ink.font = "10px system-ui, sans-serif";
            ink.fillText(top.toPrecision(3), 2, 10);
            for (const line of lines) {
              ink.strokeStyle = line.colour;
              ink.lineWidth = 1.5;
              ink.beginPath();
              let pen = false;
              for (const sample of samples) {
                const value = line.value(sample);
                if (value === null || value === undefined) { pen = false; continue; }
                const x = (1 - (end - sample.at) / hour) * board.width;
                const y = board.height - 2 - (value / top) * (board.height - 14);
                if (pen) ink.lineTo(x, y); else ink.moveTo(x, y);
                pen = true;
              }
              ink.stroke();
            }
          }
          function charts() {
            chart("chart-decode", [{ value: (s) => s.decode_ms_p50, colour: "#2a6fdb" }, { value: (s) => s.decode_ms_p99, colour: "#db6a2a" }]);
            chart("chart-reads", [{ value: (s) => s.reads_per_minute, colour: "#2c7a3f" }]);
            chart("chart-dropped", [{ value: (s) => s.dropped_per_minute, colour: "#a01010" }]);
            chart("chart-gated", [{ value: (s) => s.gated_percent, colour: "#6a4bc4" }]);
          }
          fetch("/api/health").then((response) => {
            if (response.status === 401) { location.assign("/login"); return null; }
            return response.json();
          }).then((history) => {
            if (!history) return;
            for (const sample of history.samples) addSample(sample, false);
            daemonProblem(history.daemon);
            charts();
          }, () => {});

          connect();
        })();
        """#
}
