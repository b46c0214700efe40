// Session-cursor test vectors, produced without Python.
//
//   node tests/vectors/make_cursor_vectors.mjs > tests/vectors/cursors.json
//
// The cursor is "cur_" + sha256(utf8(canonical({model, tool, transcript}))), where canonical is
// Python's json.dumps(obj, sort_keys=True, separators=(",", ":")) with ensure_ascii=True. This file
// re-implements that serializer from Python's documented semantics (Lib/json/encoder.py), using
// only Node built-ins, so that agreeing with agent_as_model/cursors.py means something: two
// implementations, one contract. tests/test_cursor_vectors.py checks every vector.
//
// Where JavaScript differs from Python and the difference matters here:
// - key order: Python sorts str keys by code point; Array.prototype.sort compares UTF-16 code
//   units, which puts an astral character (surrogate 0xD8xx..) before U+E000..U+FFFF. And JS
//   objects enumerate integer-like keys ("9", "10") first, numerically. We sort by code point.
// - string escapes: ensure_ascii escapes everything outside 0x20..0x7E (so DEL, 0x7F, too) as
//   \uXXXX in lowercase hex, astral characters as a surrogate pair, and uses the short forms
//   \" \\ \n \r \t \b \f. JSON.stringify leaves non-ASCII raw and knows nothing of this.
// - floats: Python writes float.__repr__ (1.0, 1e+16, 1e-05), JS writes 1, 10000000000000000,
//   0.00001. A float is marked with PyFloat here; a plain JS integer number or a BigInt is a
//   Python int.

import { createHash } from "node:crypto";

class PyFloat {
  constructor(value) {
    this.value = value;
  }
}
const float = (value) => new PyFloat(value);

// ---------------------------------------------------------------- Python's json.dumps

function codePoints(s) {
  // for..of walks code points; a lone surrogate comes out on its own, as Python sees it.
  return Array.from(s, (ch) => ch.codePointAt(0));
}

function compareCodePoints(a, b) {
  const x = codePoints(a);
  const y = codePoints(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return x.length - y.length;
}

const hex4 = (n) => "\\u" + n.toString(16).padStart(4, "0");

const SHORT_ESCAPES = new Map([
  [0x22, '\\"'],
  [0x5c, "\\\\"],
  [0x0a, "\\n"],
  [0x0d, "\\r"],
  [0x09, "\\t"],
  [0x08, "\\b"],
  [0x0c, "\\f"],
]);

function pyString(s) {
  let out = '"';
  for (const cp of codePoints(s)) {
    if (SHORT_ESCAPES.has(cp)) {
      out += SHORT_ESCAPES.get(cp);
    } else if (cp >= 0x20 && cp <= 0x7e) {
      out += String.fromCharCode(cp);
    } else if (cp > 0xffff) {
      const v = cp - 0x10000;
      out += hex4(0xd800 | (v >> 10)) + hex4(0xdc00 | (v & 0x3ff));
    } else {
      out += hex4(cp);
    }
  }
  return out + '"';
}

function pyFloat(x) {
  // float.__repr__: the shortest digits that round-trip (as JS's toExponential() gives them),
  // laid out fixed when the decimal exponent is in [-4, 16), else as d.ddde+XX.
  if (!Number.isFinite(x)) throw new Error("JSON cannot carry " + x);
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(Math.abs(x).toExponential());
  const digits = m[1] + (m[2] ?? "");
  const exp = Number(m[3]);
  if (exp < -4 || exp >= 16) {
    const mantissa = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    const e = String(Math.abs(exp)).padStart(2, "0");
    return `${sign}${mantissa}e${exp < 0 ? "-" : "+"}${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const frac = digits.slice(exp + 1);
  return `${sign}${whole}.${frac || "0"}`;
}

// dumps(value, {item, key, indent}) mirrors json.dumps(value, sort_keys=True,
// separators=(item, key), indent=indent) with ensure_ascii=True.
function dumps(value, { item = ", ", key = ": ", indent = null } = {}, level = 0) {
  const inner = (v) => dumps(v, { item, key, indent }, level + 1);
  const wrap = (open, parts, close) => {
    if (parts.length === 0) return open + close;
    if (indent === null) return open + parts.join(item) + close;
    const pad = "\n" + " ".repeat(indent * (level + 1));
    return open + pad + parts.join(item + pad) + "\n" + " ".repeat(indent * level) + close;
  };
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (value instanceof PyFloat) return pyFloat(value.value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`mark ${value} as float() or use a BigInt`);
    return String(value);
  }
  if (typeof value === "string") return pyString(value);
  if (Array.isArray(value)) return wrap("[", value.map(inner), "]");
  if (typeof value === "object") {
    const keys = Object.keys(value).sort(compareCodePoints);
    return wrap("{", keys.map((k) => pyString(k) + key + inner(value[k])), "}");
  }
  throw new Error("not JSON: " + typeof value);
}

const canonical = (obj) => dumps(obj, { item: ",", key: ":" });
const sha256hex = (text) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");

// ---------------------------------------------------------------- the cursor protocol

const entry = (role, content) => ({ role, content });
const toolResult = (tool_call_id, content) => ({ role: "tool", tool_call_id, content });
const toolCallsText = (text, calls) =>
  dumps({ text, tool_calls: calls.map(({ id, name, input }) => ({ id, input, name })) });

function historyCut(history) {
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i].role === "assistant") return history.slice(0, i + 1);
  }
  return [];
}

const vectors = [];

// One vector: a transcript and its cursor. `envelopes` says which assistant entries are
// tool-call envelopes (and from what), `history` is a longer history whose cut is the transcript.
function vector(name, tool, transcript, { model = "agent-default", envelopes, history } = {}) {
  const text = canonical({ model, tool, transcript });
  const v = { name, model, tool, transcript, canonical: text, cursor: "cur_" + sha256hex(text) };
  const last = transcript[transcript.length - 1];
  if (last && last.role === "assistant" && tool !== GEMINI) {
    v.result_text = dumps({ completion: last.content, response_id: v.cursor });
  }
  if (envelopes) v.envelopes = envelopes;
  if (history) {
    if (canonical(historyCut(history)) !== canonical(transcript)) {
      throw new Error(`${name}: the history does not cut to the transcript`);
    }
    v.history = history;
  }
  vectors.push(v);
  return v;
}

// An assistant entry whose content is the tool-call envelope, recorded so Python can rebuild it.
function callsTurn(envelopes, index, text, calls) {
  envelopes.push({ entry: index, text, tool_calls: calls });
  return entry("assistant", toolCallsText(text, calls));
}

const GEMINI = "gemini_generate_content";
const TOOLS = ["chat_complete", "messages_create", "responses_create", "generate"];
const hello = [entry("user", "Hello"), entry("assistant", "Hi there!")];

for (const tool of TOOLS) vector(`ascii, ${tool}`, tool, hello);
vector("other model alias", "chat_complete", hello, { model: "gpt-4o-mini" });
vector("non-ASCII model alias", "chat_complete", hello, { model: "modèle-é/中文" });
vector("empty transcript", "chat_complete", []);
vector("user turn only (no completion yet)", "chat_complete", [entry("user", "Hello")]);
vector("empty strings", "chat_complete", [entry("user", ""), entry("assistant", "")]);

vector("every role", "chat_complete", [
  entry("system", "You are terse."),
  entry("developer", "Answer in English."),
  entry("user", "What is 2+2?"),
  entry("assistant", "4"),
  entry("user", "And 3+3?"),
  entry("assistant", "6"),
]);

vector("messages_create: flattened system first", "messages_create", [
  entry("system", "You are terse.\nNever apologise."),
  entry("user", "Explain MCP sampling.\nIn one line."),
  entry("assistant", "The server asks the client's model for a completion."),
]);

vector("responses_create: instructions, developer item, string input", "responses_create", [
  entry("system", "Be brief."),
  entry("developer", "Use metric units."),
  entry("user", "How tall is Everest?"),
  entry("assistant", "8,849 m."),
]);

vector("generate: prompt and completion", "generate", [
  entry("user", "Write a haiku about the sea."),
  entry("assistant", "Grey waves fold and fold\nsalt wind writes on the wet sand\nthe tide erases"),
]);

vector("Latin-1 and BMP text (é, ß, CJK, Arabic, combining)", "chat_complete", [
  entry("user", "Café crème, straße, naïve? 日本語で答えて。中文也可以。مرحبا"),
  entry("assistant", "e\u0301 (combining) vs é (precomposed); ２０２６年"),
]);

vector("astral plane (emoji, musical symbol, ZWJ sequence, flag)", "chat_complete", [
  entry("user", "😀 𝄞 👩‍👩‍👧 🇯🇵 𝕏"),
  entry("assistant", "\u{1F600}\u{1D11E}\u{10FFFF}"),
]);

vector("BMP-high characters next to astral ones", "chat_complete", [
  entry("user", "\uE000\uFB01\uFEFF\uFFFD\uFFFF vs \u{10000}\u{1F4A9}"),
  entry("assistant", "\u2028line\u2029paragraph"),
]);

let controls = "";
for (let c = 0; c < 0x20; c++) controls += String.fromCharCode(c);
vector("control characters, DEL and C1", "chat_complete", [
  entry("user", controls),
  entry("assistant", "\x7f\x80\x9f\xa0\xad"),
]);

vector("quotes, backslashes and things that look escaped", "chat_complete", [
  entry("user", 'She said "hi" \\ then \\"left\\"'),
  entry("assistant", "literal \\n and \\u0041 and </script> and / and {\"a\":1}"),
]);

vector("JSON-looking completion stays text", "chat_complete", [
  entry("user", "Return JSON."),
  entry("assistant", '{"text": "x", "tool_calls": []}'),
]);

// Long, but mostly ASCII so the file stays small; the answer is cut by code point, never inside a
// surrogate pair.
const longText = Array.from({ length: 400 }, (_, i) => `line ${i}: the quick brown fox, é 中 😀 "\\\n`).join("");
const longAnswer = Array.from(longText).slice(0, 3001).join("");
vector("long text", "chat_complete", [entry("user", longText), entry("assistant", longAnswer)]);

// Tool turns: the assistant entry is the envelope text, each tool result a tool entry.
{
  const envelopes = [];
  const transcript = [
    entry("system", "You can look up the weather."),
    entry("user", "Weather in Paris and Tokyo?"),
    callsTurn(envelopes, 2, "", [
      { id: "call_1", name: "get_weather", input: { city: "Paris", unit: "celsius" } },
      { id: "call_2", name: "get_weather", input: { city: "東京", unit: "celsius" } },
    ]),
    toolResult("call_1", "18°C, cloudy"),
    toolResult("call_2", '{"temp": 22, "sky": "clear"}'),
    entry("assistant", "Paris: 18°C, cloudy. Tokyo: 22°C, clear."),
  ];
  vector("tool turn, then the final answer", "chat_complete", transcript, { envelopes });
}

{
  const envelopes = [];
  const transcript = [
    entry("user", "Look it up."),
    callsTurn(envelopes, 1, "Let me check.", [{ id: "toolu_01", name: "search", input: { q: "x" } }]),
  ];
  vector("the cut at a tool-call turn, with tool results after it", "messages_create", transcript, {
    envelopes,
    history: [...transcript, toolResult("toolu_01", "found: 3 items"), entry("user", "Also...")],
  });
}

{
  const envelopes = [];
  const input = {
    b: 1,
    a: [true, false, null],
    B: { z: {}, y: [] },
    "": "empty key",
    10: "ten",
    9: "nine",
    é: "e-acute",
    "\uffff": "last BMP",
    "\uFB01": "ligature",
    "😀": "astral sorts after U+FFFF",
    "𝄞": "and before U+1F600",
    "a\u0000b": "NUL in a key",
  };
  const numbers = {
    int: 42,
    negative: -7,
    zero: 0,
    big: 18446744073709551616n,
    one: float(1),
    minus_zero: float(-0),
    tenth: float(0.1),
    third: float(1 / 3),
    sum: float(0.1 + 0.2),
    e15: float(1e15),
    e16: float(1e16),
    e22: float(1e22),
    small: float(0.0001),
    smaller: float(0.00001),
    tiny: float(5e-324),
    huge: float(1.7976931348623157e308),
    f20: float(123456789012345680000),
    neg_exp: float(-2.5e-7),
  };
  const transcript = [
    entry("user", "Call both."),
    callsTurn(envelopes, 1, "Calling «both» 😀", [
      { id: "c1", name: "sort_keys", input },
      { id: "c2", name: "numbers", input: numbers },
      { id: "c3", name: "no_args", input: {} },
    ]),
    toolResult("c1", ""),
    toolResult("c2", "ok"),
    toolResult("c3", "\u0000"),
    entry("assistant", "done"),
  ];
  vector("tool-call envelope: key order, numbers, empty input", "responses_create", transcript, {
    envelopes,
  });
}

// Forking: a conversation and, for each of its turns, the truncated history a caller passes back
// with that turn's cursor (plus a new user turn that differs from the original continuation).
{
  const turns = [
    entry("system", "Count."),
    entry("user", "1"),
    entry("assistant", "2"),
    entry("user", "3"),
    entry("assistant", "4"),
    entry("user", "5"),
    entry("assistant", "6"),
  ];
  for (const end of [3, 5, 7]) {
    const transcript = turns.slice(0, end);
    vector(`chain: through entry ${end - 1}`, "chat_complete", transcript, {
      history: [...transcript, entry("user", `fork after ${end - 1}`)],
    });
  }
}

// ---------------------------------------------------------------- gemini_generate_content
// The transcript of a generateContent body, written from docs/cursors.md ("The transcript of each
// tool", "Tool turns"), not from the Python: systemInstruction first; a model content is one
// assistant entry (the envelope when it called functions); a user content gives a tool entry per
// functionResponse part, then its text parts as one user entry. Either spelling of a key is read.

const either = (obj, camel, snake) => (obj[camel] !== undefined ? obj[camel] : obj[snake]);
const joinTexts = (parts) => parts.filter((p) => p.text !== undefined).map((p) => p.text);

function responseText(response) {
  const keys = Object.keys(response);
  if (keys.length === 1 && (keys[0] === "output" || keys[0] === "error") && typeof response[keys[0]] === "string") {
    return response[keys[0]];
  }
  return dumps(response);
}

function geminiTranscript(body) {
  const out = [];
  const system = either(body, "systemInstruction", "system_instruction");
  if (system !== undefined) {
    out.push(entry("system", typeof system === "string" ? system : joinTexts(system.parts).join("\n")));
  }
  if (typeof body.contents === "string") return [...out, entry("user", body.contents)];
  let pending = [];
  body.contents.forEach((content, i) => {
    if (content.role === "model") {
      const calls = [];
      content.parts.forEach((part, j) => {
        const call = either(part, "functionCall", "function_call");
        if (call) calls.push({ id: call.id ?? `call_${i}_${j}`, name: call.name, input: call.args ?? {} });
      });
      pending = [...calls];
      const text = joinTexts(content.parts).join("\n");
      out.push(entry("assistant", calls.length ? toolCallsText(text, calls) : text));
      return;
    }
    for (const part of content.parts) {
      const answer = either(part, "functionResponse", "function_response");
      if (!answer) continue;
      const k = answer.id === undefined
        ? pending.findIndex((c) => c.name === answer.name)
        : pending.findIndex((c) => c.id === answer.id);
      const id = answer.id ?? pending[k].id;
      if (k >= 0) pending.splice(k, 1);
      out.push(toolResult(id, responseText(answer.response)));
    }
    const texts = joinTexts(content.parts);
    if (texts.length) out.push(entry("user", texts.join("\n")));
  });
  return out;
}

// What the tool returns for a final text answer with cursors on (docs/decisions.md, Gemini).
const geminiResult = (text, hostModel, cursor) =>
  dumps({
    candidates: [{ content: { parts: [{ text }], role: "model" }, finishReason: "STOP", index: 0 }],
    modelVersion: hostModel,
    responseId: cursor,
  });

function geminiVector(name, request, { model = "agent-default", cutAt } = {}) {
  const full = geminiTranscript(request);
  const transcript = cutAt === undefined ? full : full.slice(0, cutAt);
  const v = vector(name, GEMINI, transcript, { model, history: cutAt === undefined ? undefined : full });
  v.request = request;
  const last = transcript[transcript.length - 1];
  if (last && last.role === "assistant" && cutAt === undefined) {
    v.gemini_result = geminiResult(last.content, "host-model", v.cursor);
  }
}

geminiVector("gemini: system content of two parts, camelCase, a model turn", {
  systemInstruction: { parts: [{ text: "Be brief." }, { text: "Metric units." }] },
  contents: [
    { role: "user", parts: [{ text: "How tall is Everest?" }, { text: "In metres." }] },
    { role: "model", parts: [{ text: "8,849 m ⛰" }] },
  ],
});

geminiVector(
  "gemini: snake_case, calls without ids paired by name, JSON and error responses",
  {
    system_instruction: "Weather bot.",
    contents: [
      { role: "user", parts: [{ text: "Paris and 東京?" }] },
      {
        role: "model",
        parts: [
          { text: "Checking both." },
          { function_call: { name: "get_weather", args: { city: "Paris" } } },
          { function_call: { name: "get_time", args: {} } },
          { function_call: { name: "get_weather", args: { city: "東京", unit: "c" } } },
        ],
      },
      {
        parts: [
          { function_response: { name: "get_time", response: { error: "clock down" } } },
          { function_response: { name: "get_weather", response: { output: "18°C" } } },
          { function_response: { name: "get_weather", response: { temp: 22, sky: "clear 😀" } } },
          { text: "Thanks." },
        ],
      },
      { role: "model", parts: [{ text: "Paris 18°C; 東京 22°C, clear." }] },
    ],
  },
  { model: "gemini-2.5-flash" },
);

geminiVector("gemini: string contents", { contents: "Hello, 世界" });

geminiVector("gemini: an empty model answer", {
  contents: [
    { role: "user", parts: [{ text: "Hello" }] },
    { role: "model", parts: [{ text: "" }] },
  ],
});

geminiVector(
  "gemini: the cut at a call with ids, a response and a new question after it",
  {
    contents: [
      { role: "user", parts: [{ text: "Look it up." }] },
      { role: "model", parts: [{ functionCall: { id: "call_7", name: "search", args: { q: "x" } } }] },
      { role: "user", parts: [{ functionResponse: { id: "call_7", name: "search", response: { output: "3 items" } } }] },
      { role: "user", parts: [{ text: "And more?" }] },
    ],
  },
  { cutAt: 2 },
);

process.stdout.write(dumps(vectors, { item: ",", key: ": ", indent: 1 }) + "\n");
