import fs from "node:fs"; import path from "node:path"; import { execSync } from "node:child_process";
const groups = {
  flow: "PaymentFlow Exchange PricedRequests Settlements UnknownSettlements SettlementFailedError SettlementUnknownError releaseReservation serveHeld verifyPayment PaywallObserver recordingTargets",
  request: "RequestFacts requestParts routeRequestContext matchPricedRequest matchRequirements normalizedRequests invalidPath allowedMethods hasBody refuseOverrides answerPreflight",
  wires: "PaymentWire JsonPaymentWire CborPaymentWire cborDelegation cborRouting cborResponses decodePaymentHeader unsupportedPaymentFormat enforceHumanityGate enforceRevelationMask",
  page: "PaywallPage paywallPageScript paywallPageSettings paywallSettingsIssues paywallSettingsSchema renderPaywallPage escapeHtml",
  responses: "ResponsePort respond customResponseBody Offers PlainOfferCache enrichBazaar",
  setup: "assemblePaymentFlow buildFacilitator options X402OptionsError",
};
const root = process.cwd();
const move = new Map(); // abs old -> abs new (.ts)
for (const [g, names] of Object.entries(groups)) for (const n of names.split(" ")) {
  const from = path.join(root, "src/paywall", n + ".ts");
  if (!fs.existsSync(from)) throw new Error("missing " + from);
  move.set(from, path.join(root, "src/paywall", g, n + ".ts"));
}
const left = fs.readdirSync(path.join(root, "src/paywall")).filter((f) => f.endsWith(".ts") && !move.has(path.join(root, "src/paywall", f)));
if (left.length) throw new Error("unassigned " + left);
const files = execSync("git ls-files '*.ts' '*.tsx' '*.mts' '*.mjs' '*.js'", { encoding: "utf8" }).split("\n").filter(Boolean).map((f) => path.join(root, f));
const re = /((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']+)(["'])/g;
let edits = 0;
for (const file of files) {
  const src = fs.readFileSync(file, "utf8");
  const newFile = move.get(file) ?? file;
  const out = src.replace(re, (m, a, spec, c) => {
    const abs = path.resolve(path.dirname(file), spec);
    const asTs = abs.replace(/\.js$/, ".ts");
    const target = move.get(asTs) ?? (fs.existsSync(asTs) ? asTs : null);
    if (!target) return m;
    let rel = path.relative(path.dirname(newFile), target).replace(/\.ts$/, spec.endsWith(".js") ? ".js" : "");
    if (!rel.startsWith(".")) rel = "./" + rel;
    if (rel !== spec) edits++;
    return a + rel + c;
  });
  if (out !== src) fs.writeFileSync(file, out);
}
for (const [from, to] of move) { fs.mkdirSync(path.dirname(to), { recursive: true }); execSync(`git mv ${from} ${to}`); }
// plain-text mentions: src/paywall/X.ts and paywall/X.ts
const textFiles = execSync("git ls-files", { encoding: "utf8" }).split("\n").filter(Boolean).filter(f=>!f.startsWith("node_modules"));
let textEdits = 0;
for (const f of textFiles) {
  const p = path.join(root, f); if (!fs.existsSync(p) || fs.statSync(p).size > 2e6) continue;
  const s = fs.readFileSync(p, "utf8");
  let o = s;
  for (const [from, to] of move) {
    const n = path.basename(from);
    const g = path.basename(path.dirname(to));
    o = o.split(`paywall/${n}`).join(`paywall/${g}/${n}`);
  }
  if (o !== s) { fs.writeFileSync(p, o); textEdits++; }
}
console.log({ edits, textEdits });
