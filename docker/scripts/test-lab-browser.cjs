// Browser check of the lab image, run by image-test.sh: headless Chromium (driven
// by puppeteer-core) opens JupyterLab, runs every cell of a notebook through the
// Go (agx) kernel, and checks in the page what JupyterLab rendered: text, the HTML
// tensor table, the SVG autograd graph, the SVG plot, the grade kit's result table
// and a panic. It saves a screenshot of the notebook and of each code cell.
//
//   node test-lab-browser.cjs --url URL --notebook PATH --out DIR [--name NAME]
//                             [--hub-user USER]
//
//   --url       JupyterLab's address with its token (http://host:port/lab?token=...),
//               or with --hub-user the hub's login page (http://host:port/hub/login)
//   --notebook  the notebook to open, relative to the server's root directory
//               (docker/scripts/test-lab-outputs.ipynb, copied into the container)
//   --out       where the screenshots and result.json go
//   --hub-user  log in to JupyterHub as USER (any password: the test hub's dummy
//               authenticator), let the hub spawn the server, then check as above
//
// JupyterLab must run with --LabApp.expose_app_in_browser=True (window.jupyterapp).
// Chromium: $CHROMIUM (default /usr/bin/chromium). Exit status 1 on a failed check.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const puppeteer = require("puppeteer-core");

function parseArgs(argv) {
  const opts = { name: "lab" };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, "");
    if (!["url", "notebook", "out", "name", "hub-user"].includes(key) || i + 1 >= argv.length) {
      throw new Error(`unknown or incomplete argument ${argv[i]}`);
    }
    opts[key] = argv[++i];
  }
  for (const k of ["url", "notebook", "out"]) {
    if (!opts[k]) throw new Error(`--${k} is required`);
  }
  return opts;
}

const t0 = Date.now();
const log = (msg) => console.error(`[browser ${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

// What each code cell of test-lab-outputs.ipynb must show, in order (the first
// code cell declares and shows nothing).
const expectations = [
  { what: "declarations", check: (c) => c.outputs === 0 || `${c.outputs} outputs` },
  { what: "text", check: (c) => c.text.includes("agx-browser-text") || "no agx-browser-text" },
  {
    what: "HTML tensor",
    check: (c) =>
      (c.tensorTables === 1 && c.text.includes("agx-browser-tensor")) ||
      `${c.tensorTables} .agx-tensor tables, name shown: ${c.text.includes("agx-browser-tensor")}`,
  },
  {
    what: "SVG graph",
    check: (c) => (c.graphSVG === 1 && c.svgDrawn >= 1) || `graphviz SVGs ${c.graphSVG}, drawn SVGs ${c.svgDrawn}`,
  },
  {
    what: "SVG plot",
    check: (c) =>
      (c.svgDrawn === 1 && c.text.includes("agx-browser-plot")) ||
      `drawn SVGs ${c.svgDrawn}, title shown: ${c.text.includes("agx-browser-plot")}`,
  },
  {
    what: "grade kit result",
    check: (c) =>
      (c.gradeTables === 1 && c.text.includes("square of 3 is 9") && c.text.includes("agx-browser-failed-check")) ||
      `${c.gradeTables} .agx-grade tables; text: ${JSON.stringify(c.text.slice(0, 300))}`,
  },
  {
    what: "panic",
    check: (c) => (c.text.includes("agx-browser-panic") && c.errors >= 1) || `errors ${c.errors}; text: ${JSON.stringify(c.text.slice(0, 200))}`,
  },
];

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  fs.mkdirSync(opts.out, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "agx-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    // Run All waits in one page call; the notebook's own deadline (600 s) applies, not puppeteer's 180 s.
    protocolTimeout: 660000,
    userDataDir: profile,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const failures = [];
  const result = { name: opts.name, notebook: opts.notebook, cells: [], timings: {} };
  try {
    const page = await browser.newPage();
    // Tall enough that JupyterLab draws every cell of the notebook at once.
    await page.setViewport({ width: 1280, height: 4000 });
    page.on("pageerror", (err) => log(`page error: ${err.message}`));

    if (opts["hub-user"]) {
      await page.goto(opts.url, { waitUntil: "domcontentloaded", timeout: 60000 });
      await page.waitForSelector("#username_input", { timeout: 60000 });
      await page.type("#username_input", opts["hub-user"]);
      await page.type("#password_input", "any-password");
      const t = Date.now();
      await Promise.all([page.waitForNavigation({ timeout: 60000 }), page.click("#login_submit")]);
      log(`logged in to the hub as ${opts["hub-user"]}; waiting for the spawned server`);
      await page.waitForFunction(
        (user) => location.pathname.startsWith(`/user/${user}/lab`),
        { timeout: 180000, polling: 500 },
        opts["hub-user"],
      );
      result.timings.spawn_s = (Date.now() - t) / 1000;
      log(`the hub spawned the server: ${page.url().replace(/token=[^&]+/, "token=...")}`);
    } else {
      await page.goto(opts.url, { waitUntil: "domcontentloaded", timeout: 60000 });
    }
    await page.waitForFunction(() => window.jupyterapp !== undefined, { timeout: 120000, polling: 250 });
    result.jupyterlab = await page.evaluate(async () => {
      await window.jupyterapp.restored;
      return window.jupyterapp.version;
    });
    log(`JupyterLab ${result.jupyterlab} is up`);

    const t = Date.now();
    const run = await page.evaluate(async (nbPath) => {
      const app = window.jupyterapp;
      const widget = await app.commands.execute("docmanager:open", {
        path: nbPath,
        factory: "Notebook",
        kernel: { name: "agx-go" },
      });
      await widget.context.ready;
      await widget.sessionContext.ready;
      app.shell.activateById(widget.id);
      const kernel = widget.sessionContext.session.kernel;
      await app.commands.execute("notebook:run-all-cells");
      // Run All returns once the cells are queued or run; wait for every code cell to
      // have an execution count and the kernel to be idle.
      const deadline = Date.now() + 600000;
      for (;;) {
        const cells = widget.content.widgets.filter((c) => c.model.type === "code");
        const done = cells.every((c) => c.model.executionCount !== null);
        if (done && kernel.status === "idle") break;
        if (Date.now() > deadline) throw new Error("the notebook did not finish running in 600 s");
        await new Promise((r) => setTimeout(r, 250));
      }
      return { kernel: kernel.name, id: widget.id };
    }, opts.notebook);
    result.timings.run_all_s = (Date.now() - t) / 1000;
    log(`ran all cells with kernel ${run.kernel} in ${result.timings.run_all_s} s`);
    // Let the last outputs render (SVG layout).
    await new Promise((r) => setTimeout(r, 1000));

    result.cells = await page.evaluate(() => {
      const nbw = window.jupyterapp.shell.currentWidget.content;
      return nbw.widgets
        .filter((c) => c.model.type === "code")
        .map((c) => {
          const area = c.node.querySelector(".jp-OutputArea");
          const outs = area ? [...area.querySelectorAll(".jp-OutputArea-output")] : [];
          const svgs = area ? [...area.querySelectorAll("svg")] : [];
          return {
            count: c.model.executionCount,
            outputs: outs.length,
            text: area ? area.innerText : "",
            tensorTables: area ? area.querySelectorAll(".agx-tensor table").length : 0,
            gradeTables: area ? area.querySelectorAll(".agx-grade table").length : 0,
            graphSVG: area ? area.querySelectorAll("svg g.graph").length : 0,
            svgDrawn: svgs.filter((s) => {
              const r = s.getBoundingClientRect();
              return r.width > 50 && r.height > 50;
            }).length,
            errors: area ? area.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"], .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]').length : 0,
          };
        });
    });
    if (result.cells.length !== expectations.length) {
      failures.push(`the notebook has ${result.cells.length} code cells, the check expects ${expectations.length}`);
    }
    const cellNodes = await page.$$(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-CodeCell");
    for (let i = 0; i < Math.min(result.cells.length, expectations.length); i++) {
      const verdict = expectations[i].check(result.cells[i]);
      const ok = verdict === true;
      result.cells[i].what = expectations[i].what;
      result.cells[i].ok = ok;
      log(`cell ${i + 1} (${expectations[i].what}): ${ok ? "ok" : "FAIL: " + verdict}`);
      if (!ok) failures.push(`cell ${i + 1} (${expectations[i].what}): ${verdict}`);
      if (cellNodes[i]) {
        await cellNodes[i].screenshot({ path: path.join(opts.out, `${opts.name}-cell${i + 1}.png`) });
      }
    }
    await page.screenshot({ path: path.join(opts.out, `${opts.name}-notebook.png`) });
  } catch (err) {
    failures.push(String(err && err.stack ? err.stack : err));
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  result.failures = failures;
  fs.writeFileSync(path.join(opts.out, `${opts.name}-result.json`), JSON.stringify(result, null, 2));
  if (failures.length > 0) {
    for (const f of failures) console.error(`FAIL: ${f}`);
    process.exit(1);
  }
  log(`all ${expectations.length} cells rendered as expected; screenshots in ${opts.out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
