import { describe, expect, it } from "vitest";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createRouterTransport } from "@connectrpc/connect";
import {
  AnalysisService,
  createGriotClient,
  decodeErrorInfo,
  errorInfo,
  isOffline,
  moveCells,
  Player,
  PositionInfoSchema,
  RulesService,
  ScoreSchema,
  ScoreSource,
  scoreText,
  southValue,
} from "../src/index.js";

// ErrorInfo{reason: "not_own_hole", domain: "griot.v1", metadata: {move: "A", error: "illegal_move"}},
// exactly the bytes the server sent in test_connect.py's illegal-move case.
const ERROR_INFO = Uint8Array.from(
  atob("Cgxub3Rfb3duX2hvbGUSCGdyaW90LnYxGgkKBG1vdmUSAUEaFQoFZXJyb3ISDGlsbGVnYWxfbW92ZQ"),
  (c) => c.charCodeAt(0),
);

const START = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -";

/** A fake rules service in memory: the client's typed surface and error path without a server. */
function fakeTransport() {
  return createRouterTransport(({ service }) => {
    service(RulesService, {
      startPosition: (req) => ({
        position: create(PositionInfoSchema, { notation: START, variant: req.variant, sideToMove: Player.SOUTH }),
        legalMoves: ["a", "b", "c", "d", "e", "f"],
      }),
      applyMove: (req) => {
        if (req.move === "A") {
          const err = new ConnectError("hole A belongs to North", Code.InvalidArgument);
          err.details.push({ type: "google.rpc.ErrorInfo", value: ERROR_INFO });
          throw err;
        }
        return { move: req.move };
      },
    });
  });
}

describe("createGriotClient", () => {
  it("calls the rules service with typed messages", async () => {
    const g = createGriotClient("http://unused", { transport: fakeTransport() });
    const r = await g.rules.startPosition({ variant: "abapa" });
    expect(r.position?.notation).toBe(START);
    expect(r.legalMoves).toHaveLength(6);
  });

  it("surfaces the ErrorInfo of an illegal move", async () => {
    const g = createGriotClient("http://unused", { transport: fakeTransport() });
    const err = await g.rules.applyMove({ position: START, move: "A" }).catch((e: unknown) => e);
    expect(ConnectError.from(err).code).toBe(Code.InvalidArgument);
    expect(errorInfo(err)).toEqual({
      reason: "not_own_hole",
      domain: "griot.v1",
      metadata: { move: "A", error: "illegal_move" },
    });
    expect(isOffline(err)).toBe(false);
  });

  it("treats an unserved service as offline", async () => {
    const g = createGriotClient("http://unused", { transport: fakeTransport() });
    const err = await g.analysis.bestMove({ position: START }).catch((e: unknown) => e);
    expect(ConnectError.from(err).code).toBe(Code.Unimplemented);
    expect(isOffline(err)).toBe(true);
    expect(AnalysisService.typeName).toBe("griot.v1.AnalysisService");
  });

  it("sends the API key and posts Connect JSON to baseUrl", async () => {
    const seen: { url: string; headers: Headers; body: string }[] = [];
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const body = init?.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : String(init?.body);
      seen.push({ url: String(input), headers: new Headers(init?.headers), body });
      return new Response(JSON.stringify({ moves: ["a"] }), { headers: { "content-type": "application/json" } });
    };
    const g = createGriotClient("http://127.0.0.1:8080/api/", { apiKey: "k1", fetch: fetch as typeof globalThis.fetch });
    const r = await g.rules.listLegalMoves({ position: START });
    expect(r.moves).toEqual(["a"]);
    expect(seen[0].url).toBe("http://127.0.0.1:8080/api/griot.v1.RulesService/ListLegalMoves");
    expect(seen[0].headers.get("x-api-key")).toBe("k1");
    expect(seen[0].headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(seen[0].body)).toEqual({ position: START });
  });
});

describe("helpers", () => {
  it("decodes ErrorInfo and ignores unknown fields", () => {
    const extra = new Uint8Array([...ERROR_INFO, 0x20, 0x07]); // field 4, varint 7
    expect(decodeErrorInfo(extra).reason).toBe("not_own_hole");
  });

  it("writes scores and turns them into South's advantage", () => {
    const centi = create(ScoreSchema, { value: { case: "centi", value: -150 } });
    expect(scoreText(centi)).toBe("-1.50");
    expect(southValue(centi, Player.SOUTH)).toBe(-150);
    expect(southValue(centi, Player.NORTH)).toBe(150);
    const win = create(ScoreSchema, { value: { case: "winsIn", value: 3 } });
    expect(scoreText(win)).toBe("win in 3");
    expect(southValue(win, Player.NORTH)).toBe(-2400);
    expect(scoreText(create(ScoreSchema, { value: { case: "draw", value: true } }))).toBe("draw");
    const exact = create(ScoreSchema, { value: { case: "winsIn", value: 1 }, source: ScoreSource.DATABASE, finalMargin: 4 });
    expect(scoreText(exact)).toBe("win by 4 (exact)");
    const searched = create(ScoreSchema, { value: { case: "losesIn", value: 2 }, source: ScoreSource.SEARCH });
    expect(scoreText(searched)).toBe("loss in 2");
    expect(southValue(undefined, Player.SOUTH)).toBeUndefined();
    expect(toBinary(ScoreSchema, centi).length).toBeGreaterThan(0);
  });

  it("finds the cells a move names", () => {
    const two = new Set(["a", "b", "c", "A", "B", "C"]);
    expect(moveCells("c", two)).toEqual(["c"]);
    expect(moveCells("c:cw", two)).toEqual(["c"]);
    expect(moveCells("pass", two)).toEqual([]);
    expect(moveCells("fill:abd", two)).toEqual([]);
    const grid = new Set(["a1", "b1", "c2", "c3", "c4", "d4", "d1", "e1"]);
    expect(moveCells("c2-c3-c4", grid)).toEqual(["c2", "c3", "c4"]);
    expect(moveCells("c2,d4", grid)).toEqual(["c2", "d4"]);
    expect(moveCells("remove:d1,e1", grid)).toEqual(["d1", "e1"]);
    const loops = new Set(["o1", "i2"]);
    expect(moveCells("o1:cw+keep+i2:cw", loops)).toEqual(["o1", "i2"]);
    // A turn of several steps joined by '/': every step's cells, in order.
    expect(moveCells("o1:cw/keep+i2:cw/ccw", loops)).toEqual(["o1", "i2"]);
    const board = new Set(["a1", "b2", "b4", "c3"]);
    expect(moveCells("a1-c3/b2-b4/stop", board)).toEqual(["a1", "c3", "b2", "b4"]);
  });
});
