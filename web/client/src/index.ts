/**
 * Griot's API (griot.v1) in TypeScript, over the Connect protocol.
 *
 * Everything under `./gen` is generated from `protos/` by buf and protoc-gen-es (`npm run gen`);
 * this file adds only what the generated code cannot know:
 *
 * - {@link createGriotClient}: both services' clients on one transport, with an API key;
 * - {@link errorInfo}: the `google.rpc.ErrorInfo` every Griot error carries (reason, metadata);
 * - {@link isOffline}: whether a failure means "the service is not there" (no gateway running);
 * - {@link scoreText} / {@link southValue}: scores for people and for evaluation bars;
 * - {@link moveCells}: the board cells a move names, to play moves by clicking cells.
 */
import { type Client, Code, ConnectError, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { AnalysisService } from "./gen/griot/v1/analysis_pb.js";
import { Player, type Score, ScoreSource } from "./gen/griot/v1/common_pb.js";
import { RulesService } from "./gen/griot/v1/rules_pb.js";

export * from "./gen/griot/v1/common_pb.js";
export * from "./gen/griot/v1/rules_pb.js";
export * from "./gen/griot/v1/analysis_pb.js";
export { Code, ConnectError } from "@connectrpc/connect";

/** The `google.rpc.ErrorInfo` domain of every error Griot raises for bad input. */
export const ERROR_DOMAIN = "griot.v1";

export interface GriotClientOptions {
  /** Sent as `x-api-key` on every call (the gateway checks it when auth is on). */
  apiKey?: string;
  /** Binary Protobuf instead of JSON on the wire (smaller; JSON is easier to read in devtools). */
  binary?: boolean;
  /** A fetch implementation (tests, Node without a global fetch). */
  fetch?: typeof globalThis.fetch;
  /** A transport to use instead of a Connect transport to `baseUrl` (tests). */
  transport?: Transport;
  /** Extra interceptors (logging, auth of your own). */
  interceptors?: Interceptor[];
}

export interface GriotClient {
  /** Rules of every game: variants, positions, legal moves, moves with their events. */
  rules: Client<typeof RulesService>;
  /** Evaluations, game analysis, live sessions, best moves (served by the gateway). */
  analysis: Client<typeof AnalysisService>;
  transport: Transport;
}

/**
 * Clients of both services at `baseUrl`: the web server's address with its API prefix, e.g.
 * `http://127.0.0.1:8080/api` (or `${location.origin}/api` from the demo app).
 */
export function createGriotClient(baseUrl: string, options: GriotClientOptions = {}): GriotClient {
  const interceptors: Interceptor[] = [...(options.interceptors ?? [])];
  if (options.apiKey) {
    const key = options.apiKey;
    interceptors.unshift((next) => (req) => {
      req.header.set("x-api-key", key);
      return next(req);
    });
  }
  const transport =
    options.transport ??
    createConnectTransport({
      baseUrl: baseUrl.replace(/\/+$/, ""),
      useBinaryFormat: options.binary ?? false,
      interceptors,
      fetch: options.fetch,
    });
  return {
    rules: createClient(RulesService, transport),
    analysis: createClient(AnalysisService, transport),
    transport,
  };
}

/** The decoded `google.rpc.ErrorInfo` of a Griot error. */
export interface ErrorInfo {
  /** Machine-readable: `bad_notation`, `unknown_variant`, `not_own_hole`, `overloaded`, ... */
  reason: string;
  /** `griot.v1` for Griot's own errors. */
  domain: string;
  /** `error` (the kind: `illegal_move`, `notation`, ...), `move`, `option`, `field`. */
  metadata: Record<string, string>;
}

/** Decodes an ErrorInfo message (google/rpc/error_details.proto: reason = 1, domain = 2, metadata = 3). */
export function decodeErrorInfo(bytes: Uint8Array): ErrorInfo {
  const info: ErrorInfo = { reason: "", domain: "", metadata: {} };
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field === 1) info.reason = r.string();
    else if (field === 2) info.domain = r.string();
    else if (field === 3) {
      const entry = new BinaryReader(r.bytes());
      let key = "";
      let value = "";
      while (entry.pos < entry.len) {
        const [f, w] = entry.tag();
        if (f === 1) key = entry.string();
        else if (f === 2) value = entry.string();
        else entry.skip(w);
      }
      info.metadata[key] = value;
    } else r.skip(wireType);
  }
  return info;
}

/** The ErrorInfo of a failed call, if the server sent one. */
export function errorInfo(err: unknown): ErrorInfo | undefined {
  const ce = ConnectError.from(err);
  for (const d of ce.details) {
    if ("type" in d && d.type === "google.rpc.ErrorInfo") return decodeErrorInfo(d.value);
  }
  return undefined;
}

/**
 * Whether a failure means the service is not reachable or not served here (no gateway running, the
 * web server without AnalysisService, the network down), rather than a bad request.
 */
export function isOffline(err: unknown): boolean {
  const code = ConnectError.from(err).code;
  return code === Code.Unavailable || code === Code.Unimplemented || code === Code.Unknown;
}

/** A score for people: `+1.50` / `-0.25` (seeds), `win in 3`, `loss in 2`, `draw`. */
export function scoreText(score: Score | undefined): string {
  const v = score?.value;
  // From the endgame databases: the exact final margin, not a count of turns.
  const margin = score?.source === ScoreSource.DATABASE ? score.finalMargin : undefined;
  switch (v?.case) {
    case "centi":
      return `${v.value >= 0 ? "+" : "-"}${(Math.abs(v.value) / 100).toFixed(2)}`;
    case "winsIn":
      return margin !== undefined ? `win by ${Math.abs(margin)} (exact)` : `win in ${v.value}`;
    case "losesIn":
      return margin !== undefined ? `loss by ${Math.abs(margin)} (exact)` : `loss in ${v.value}`;
    case "draw":
      return "draw";
    default:
      return "?";
  }
}

/**
 * A score as South's advantage in centi-units, for evaluation bars and graphs: scores are from the
 * side to move's point of view, so North's are negated; proven results count as ±`decisive`.
 */
export function southValue(score: Score | undefined, sideToMove: Player, decisive = 2400): number | undefined {
  const v = score?.value;
  let x: number;
  switch (v?.case) {
    case "centi":
      x = v.value;
      break;
    case "winsIn":
      x = decisive;
      break;
    case "losesIn":
      x = -decisive;
      break;
    case "draw":
      x = 0;
      break;
    default:
      return undefined;
  }
  return sideToMove === Player.NORTH ? -x : x;
}

/**
 * The board cells a move names, in order, as labels of the variant's geometry: `c` → [c],
 * `c:cw` → [c], `c2-c3-c4` → [c2, c3, c4], `c2,d4` → [c2, d4], `o1:cw+keep+i2:cw` → [o1, i2],
 * `pass` → []. A turn of several steps (joined by `/`) names the cells of every step in turn:
 * `o1:cw/keep+i2:cw/ccw` → [o1, i2], `a1-c3/b2-b4/stop` → [a1, c3, b2, b4]. Tokens that are not cell
 * labels (directions, keywords) are left out.
 */
export function moveCells(move: string, labels: ReadonlySet<string>): string[] {
  return move.split(/[-,+:/]/).filter((t) => labels.has(t));
}
