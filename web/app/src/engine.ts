/**
 * The engine behind a small interface, so that the board works with or without the analysis
 * gateway: {@link connectEngine} calls AnalysisService; {@link offlineEngine} answers nothing and
 * says why. {@link probeEngine} picks one by asking the web server which services it serves, and a
 * call that finds the service gone (unavailable, unimplemented) turns the engine offline.
 */
import { create } from "@bufbuild/protobuf";
import { DurationSchema } from "@bufbuild/protobuf/wkt";
import {
  type Evaluation,
  type GameReport,
  type GriotClient,
  isOffline,
  Priority,
  type Score,
  type TurnAnalysis,
} from "@griot/client";

export interface EngineMove {
  move: string;
  score?: Score;
}

export interface Engine {
  /** Whether the engine can answer now. */
  readonly online: boolean;
  /** Why not, when offline. */
  readonly reason: string;
  /** A move for an AI player at a level (1-10), or null when offline. */
  bestMove(position: string, level: number, history?: string[], signal?: AbortSignal): Promise<EngineMove | null>;
  /** Streams evaluations of a position (deeper and deeper) until done, aborted or offline. */
  evaluate(position: string, onEval: (e: Evaluation) => void, signal: AbortSignal, maxDepth?: number): Promise<void>;
  /** Analyses a game, reporting each analysed turn; the report, or null when offline. */
  analyzeGame(
    variant: string,
    startPosition: string,
    moves: string[],
    onTurn: (t: TurnAnalysis, done: number, total: number) => void,
    signal?: AbortSignal,
  ): Promise<GameReport | null>;
}

export function offlineEngine(reason = "engine offline"): Engine {
  return {
    online: false,
    reason,
    bestMove: async () => null,
    evaluate: async () => {},
    analyzeGame: async () => null,
  };
}

/** The engine through the gateway's AnalysisService. */
export function connectEngine(client: GriotClient, onOffline: (reason: string) => void = () => {}): Engine {
  const engine = {
    online: true,
    reason: "",
    goOffline(err: unknown): boolean {
      if (!isOffline(err)) return false;
      engine.online = false;
      engine.reason = "engine offline";
      onOffline(engine.reason);
      return true;
    },
    async bestMove(
      position: string,
      level: number,
      history: string[] = [],
      signal?: AbortSignal,
    ): Promise<EngineMove | null> {
      if (!engine.online) return null;
      try {
        const r = await client.analysis.bestMove(
          {
            position,
            level,
            maxTime: create(DurationSchema, { seconds: 2n }),
            history: { positions: history },
            // A seed of its own each time: the same seed picks the same move, as in process.
            seed: BigInt(Math.floor(Math.random() * 2 ** 32)),
          },
          { signal, timeoutMs: 10_000 },
        );
        return { move: r.move, score: r.score };
      } catch (err) {
        if (engine.goOffline(err) || signal?.aborted) return null;
        throw err;
      }
    },
    async evaluate(position: string, onEval: (e: Evaluation) => void, signal: AbortSignal, maxDepth = 0) {
      if (!engine.online) return;
      try {
        const stream = client.analysis.evaluate(
          {
            position,
            includeMoveScores: true,
            priority: Priority.INTERACTIVE,
            limits: { maxDepth, maxTime: create(DurationSchema, { seconds: 5n }) },
          },
          { signal },
        );
        for await (const msg of stream) {
          if (msg.evaluation) onEval(msg.evaluation);
        }
      } catch (err) {
        if (engine.goOffline(err) || signal.aborted) return;
        throw err;
      }
    },
    async analyzeGame(
      variant: string,
      startPosition: string,
      moves: string[],
      onTurn: (t: TurnAnalysis, done: number, total: number) => void,
      signal?: AbortSignal,
    ): Promise<GameReport | null> {
      if (!engine.online) return null;
      try {
        let report: GameReport | null = null;
        const stream = client.analysis.analyzeGame(
          { game: { case: "moves", value: { variant, startPosition, moves } }, priority: Priority.INTERACTIVE },
          { signal },
        );
        for await (const msg of stream) {
          if (msg.update.case === "progress" && msg.update.value.turn) {
            onTurn(msg.update.value.turn, msg.update.value.positionsDone, msg.update.value.positionsTotal);
          } else if (msg.update.case === "report") {
            report = msg.update.value;
          }
        }
        return report;
      } catch (err) {
        if (engine.goOffline(err) || signal?.aborted) return null;
        throw err;
      }
    },
  };
  return engine;
}

/**
 * The engine to use: through the gateway when the web server serves AnalysisService
 * (`GET <api>/services`), else offline.
 */
export async function probeEngine(
  apiBase: string,
  client: GriotClient,
  fetchFn: typeof fetch = fetch,
  onOffline?: (reason: string) => void,
): Promise<Engine> {
  try {
    const r = await fetchFn(`${apiBase.replace(/\/+$/, "")}/services`);
    if (!r.ok) return offlineEngine("engine offline");
    const body = (await r.json()) as { services?: Record<string, string> };
    if (!body.services?.["griot.v1.AnalysisService"]) return offlineEngine("engine offline (no gateway)");
    return connectEngine(client, onOffline);
  } catch {
    return offlineEngine("engine offline");
  }
}
