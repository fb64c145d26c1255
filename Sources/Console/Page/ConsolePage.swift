extension Page {
    /// The console: the live view with its codes, the viewport editor, the controls, health and
    /// reads. Every element a test or a browser test looks for has a stable id; /app.js fills them.
    static let console = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>kiosk-scanner console</title>
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <header>
        <h1>kiosk-scanner console</h1>
        <span id="user"></span>
        <span id="connection" class="badge">connecting</span>
        <form id="logout-form" method="post" action="/logout"><button id="logout" type="submit">Sign out</button></form>
        </header>
        <p id="notice" class="problem" hidden></p>
        <main>
        <section id="live-section">
        <h2>What the camera sees</h2>
        <canvas id="live" width="640" height="480"></canvas>
        <div class="live-bar">
        <label>Frames a second <select id="fps">
        <option>1</option><option>2</option><option>4</option><option>8</option><option>15</option>
        </select></label>
        <label>Width <select id="width">
        <option>160</option><option>320</option><option>480</option><option>640</option><option>960</option><option>1280</option>
        </select></label>
        <span id="live-rate">0.0 fps</span>
        <span id="live-size"></span>
        </div>
        <h3>Codes in this frame</h3>
        <ul id="live-codes"></ul>
        </section>

        <section id="viewport-section">
        <h2>Viewport</h2>
        <p>Drag a rectangle on the live image, or type it as fractions of the frame, then check it.</p>
        <div class="viewport-inputs">
        <label>x <input id="vp-x" type="number" min="0" max="1" step="0.001" value="0.125"></label>
        <label>y <input id="vp-y" type="number" min="0" max="1" step="0.001" value="0.125"></label>
        <label>width <input id="vp-w" type="number" min="0" max="1" step="0.001" value="0.75"></label>
        <label>height <input id="vp-h" type="number" min="0" max="1" step="0.001" value="0.75"></label>
        <button id="vp-check" type="button">Check</button>
        </div>
        <pre id="viewport-lines"></pre>
        <p id="viewport-verdict"></p>
        </section>

        <section id="controls-section">
        <h2>Controls</h2>
        <div class="controls">
        <button id="ctl-torch-on" type="button" data-command="torch on">Torch on</button>
        <button id="ctl-torch-off" type="button" data-command="torch off">Torch off</button>
        <button id="ctl-torch-auto" type="button" data-command="torch auto">Torch auto</button>
        <button id="ctl-pause" type="button" data-command="pause">Pause</button>
        <button id="ctl-resume" type="button" data-command="resume">Resume</button>
        <button id="ctl-trigger" type="button" data-command="trigger">Trigger</button>
        <button id="ctl-beep" type="button" data-command="beep">Beep</button>
        </div>
        <p id="ctl-result"></p>
        </section>

        <section id="health-section">
        <h2>Health</h2>
        <dl class="health">
        <dt>Camera</dt><dd id="health-camera">?</dd>
        <dt>Torch</dt><dd id="health-torch">?</dd>
        <dt>Mode</dt><dd id="health-mode">?</dd>
        <dt>Decode time p50 / p99</dt><dd id="health-decode">?</dd>
        <dt>Reads a minute</dt><dd id="health-reads">?</dd>
        <dt>Dropped</dt><dd id="health-dropped">?</dd>
        <dt>Frames gated</dt><dd id="health-gated">?</dd>
        <dt>Watching</dt><dd id="health-watchers">?</dd>
        </dl>
        <p id="health-daemon" class="problem" hidden></p>
        <div class="charts">
        <figure><canvas id="chart-decode" width="320" height="100"></canvas><figcaption>decode ms, p50 and p99, last hour</figcaption></figure>
        <figure><canvas id="chart-reads" width="320" height="100"></canvas><figcaption>reads a minute</figcaption></figure>
        <figure><canvas id="chart-dropped" width="320" height="100"></canvas><figcaption>dropped a minute</figcaption></figure>
        <figure><canvas id="chart-gated" width="320" height="100"></canvas><figcaption>frames gated, %</figcaption></figure>
        </div>
        </section>

        <section id="reads-section">
        <h2>Reads</h2>
        <table>
        <thead><tr><th>time</th><th>symbology</th><th>text</th><th>outcome</th><th>reason</th></tr></thead>
        <tbody id="reads"></tbody>
        </table>
        </section>
        </main>
        </body>
        </html>

        """
}
