// Runs pixelmatch 7 (from an npm tools folder outside the repository) on PNG pairs and
// prints one JSON line per pair: the changed-pixel count and the time pixelmatch itself
// takes on the decoded pixels (PNG decoding is left out, as the anchor is the compare).
//
//   node pixelmatch_anchor.mjs --tools DIR [--rounds N] [--threshold T] A.png B.png [A.png C.png ...]
//
// DIR holds node_modules with pixelmatch@7 and pngjs (`npm install pixelmatch@7 pngjs`).
// Alpha is blended with white (checkerboard: false), as layoutkit.review.diff does; on
// opaque screenshots both backgrounds give the same count.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
let tools = null;
let rounds = 1;
let threshold = 0.1;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--tools") tools = args[++i];
  else if (args[i] === "--rounds") rounds = Number(args[++i]);
  else if (args[i] === "--threshold") threshold = Number(args[++i]);
  else files.push(args[i]);
}
if (!tools || files.length % 2 !== 0) {
  console.error("usage: --tools DIR [--rounds N] [--threshold T] A.png B.png [...]");
  process.exit(2);
}
const modules = path.resolve(tools, "node_modules");
const pixelmatch = (await import(pathToFileURL(path.join(modules, "pixelmatch", "index.js")))).default;
const { PNG } = createRequire(path.join(modules, "noop.js"))("pngjs");
const version = JSON.parse(fs.readFileSync(path.join(modules, "pixelmatch", "package.json"))).version;

for (let p = 0; p < files.length; p += 2) {
  const a = PNG.sync.read(fs.readFileSync(files[p]));
  const b = PNG.sync.read(fs.readFileSync(files[p + 1]));
  const out = { a: path.basename(files[p]), b: path.basename(files[p + 1]), pixelmatch: version };
  if (a.width !== b.width || a.height !== b.height) {
    out.size = [[a.width, a.height], [b.width, b.height]];
    console.log(JSON.stringify(out));
    continue;
  }
  const opts = { threshold, checkerboard: false };
  let count = 0;
  count = pixelmatch(a.data, b.data, null, a.width, a.height, opts); // warm-up
  const wall = [];
  const cpu = [];
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    const w0 = process.hrtime.bigint();
    count = pixelmatch(a.data, b.data, null, a.width, a.height, opts);
    wall.push(Number(process.hrtime.bigint() - w0) / 1e6);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  Object.assign(out, { width: a.width, height: a.height, threshold, count, wall_ms: wall, cpu_ms: cpu });
  console.log(JSON.stringify(out));
}
