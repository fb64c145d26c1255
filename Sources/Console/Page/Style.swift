extension Page {
    /// /app.css: plain and small; the live image scales to the column it is in. The list of
    /// codes in view keeps one height as codes come and go, so that the controls below it do
    /// not move under the mouse.
    static let style = """
        :root { font-family: system-ui, sans-serif; color: #1c1c1c; background: #f4f4f2; }
        body { margin: 0; }
        header { display: flex; gap: 1em; align-items: center; padding: 0.5em 1em; background: #24323f; color: #fff; }
        header h1 { font-size: 1.1em; margin: 0; flex: 1; }
        header form { margin: 0; }
        main { display: grid; grid-template-columns: repeat(auto-fit, minmax(22em, 1fr)); gap: 1em; padding: 1em; }
        section { background: #fff; border-radius: 6px; padding: 0.5em 1em 1em; box-shadow: 0 1px 3px #0002; }
        #live-section { grid-column: 1 / -1; }
        h2 { font-size: 1em; } h3 { font-size: 0.9em; }
        #live-codes { height: 4.5em; overflow-y: auto; margin: 0; padding-left: 1.5em; }
        #live { width: min(100%, 960px); height: auto; background: #000; cursor: crosshair; display: block; }
        .live-bar, .viewport-inputs, .controls { display: flex; flex-wrap: wrap; gap: 0.6em; align-items: center; margin: 0.5em 0; }
        .viewport-inputs input { width: 5.5em; }
        pre { background: #f0f0ee; padding: 0.5em; min-height: 2.5em; }
        .problem { color: #a01010; }
        .ok { color: #17602a; }
        .badge { font-size: 0.8em; padding: 0.1em 0.5em; border-radius: 1em; background: #556; }
        .badge.up { background: #2c7a3f; } .badge.down { background: #a01010; }
        dl.health { display: grid; grid-template-columns: max-content 1fr; gap: 0.2em 1em; }
        dl.health dd { margin: 0; font-variant-numeric: tabular-nums; }
        .charts { display: flex; flex-wrap: wrap; gap: 0.5em; }
        figure { margin: 0; } figcaption { font-size: 0.8em; color: #555; }
        table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
        th, td { text-align: left; padding: 0.2em 0.4em; border-bottom: 1px solid #ddd; word-break: break-all; }
        tr.dropped td, tr.held td { color: #a01010; }
        body.sign-in main { display: block; max-width: 22em; margin: 3em auto; }
        body.sign-in form { display: grid; gap: 0.6em; margin: 1em 0; }
        """
}
