// The TypeScript client against a running web server (`griot up`, or `python -m griot.services.web
// --analysis HOST:PORT`): a unary call, an error's ErrorInfo, and Evaluate's stream. Run with
//
//   cd web && npx vite-node client/examples/evaluate.ts [http://127.0.0.1:8080/api]
//
// It is the README's example (web/README.md), kept runnable; tests/web/test_examples.py runs it.
import { createGriotClient, errorInfo, scoreText } from "@griot/client";

declare const process: { argv: string[] }; // Node's (no @types/node in this workspace)

const griot = createGriotClient(process.argv[2] ?? "http://127.0.0.1:8080/api");

const { position, legalMoves } = await griot.rules.startPosition({ variant: "abapa" });
console.log(position!.notation, legalMoves.join(" ")); // abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 - a b c d e f
try {
  await griot.rules.applyMove({ position: position!.notation, move: "A" });
} catch (err) {
  console.log(errorInfo(err)?.reason); // not_own_hole
}

// Server streaming: one message per depth the gateway completes, the last one final.
for await (const { evaluation } of griot.analysis.evaluate({
  position: position!.notation,
  limits: { maxDepth: 10 },
})) {
  console.log(evaluation?.depth, scoreText(evaluation?.score), evaluation?.bestMove, evaluation?.final);
}
