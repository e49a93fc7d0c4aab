/**
 * Results in words for people: a finished game's summary ("South wins 26-22 (by 4 seeds): North
 * cannot move"), scores and proven results ("South wins with best play"), and what a move lost.
 * The API's stable names (`turn_limit`) and centi-units stay out of what the page shows.
 */
import { type GameOutcome, GameResult, Player, type Score, type TurnAnalysis } from "@griot/client";

export function sideName(p: Player): string {
  return p === Player.SOUTH ? "South" : p === Player.NORTH ? "North" : "?";
}

export function opponent(p: Player): Player {
  return p === Player.SOUTH ? Player.NORTH : p === Player.NORTH ? Player.SOUTH : Player.UNSPECIFIED;
}

/** `1 seed`, `3 seeds`, `1.5 seeds` (or pieces): an amount in the game's own unit. */
export function amount(n: number, unit = "seed"): string {
  const text = Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, "").replace(/\.$/, "");
  return `${text} ${unit}${Math.abs(n) === 1 ? "" : "s"}`;
}

/** Why the game ended, as a clause: `North cannot move`, `the limit of 30 turns was reached`. */
export function reasonText(reason: string, outcome: GameOutcome, sideToMove: Player, turns: number): string {
  const winner =
    outcome.result === GameResult.SOUTH_WINS ? "South" : outcome.result === GameResult.NORTH_WINS ? "North" : undefined;
  const loser = winner === "South" ? "North" : winner === "North" ? "South" : undefined;
  const toMove = sideName(sideToMove);
  switch (reason) {
    case "stuck":
      return `${toMove} cannot move`;
    case "neither_can_move":
      return "neither player can move";
    case "board_empty":
      return "the board is empty";
    case "few_seeds":
      return "too few seeds are left to play on";
    case "store_threshold":
      return winner ? `${winner} has captured enough seeds to win` : "a player has captured enough seeds to win";
    case "all_singletons":
      return "no hole holds more than one seed";
    case "endless_cycle":
      return "the play went round in an endless cycle";
    case "repetition":
      return "the same position came up for the third time";
    case "turn_limit":
      return `the limit of ${turns} turns was reached`;
    case "captured_all":
      return winner ? `${winner} captured all of ${loser}'s seeds` : "everything was captured";
    case "blocked":
      return `${toMove} is blocked`;
    case "end_holes":
      return winner
        ? `${winner} captured both of ${loser}'s inner end holes in one turn`
        : "both inner end holes were captured in one turn";
    case "match_lost":
      return loser ? `${loser} could not fill a hole for another round` : "a hole could not be filled for another round";
    default:
      // A reason a newer rules service names: its words, not its underscores.
      return reason.replace(/_/g, " ");
  }
}

/**
 * A finished game in one sentence: who won, by how much and why it ended, e.g.
 * `South wins 26-22 (by 4 seeds): North cannot move` or `Draw 24-24: the limit of 10 turns was reached`.
 */
export function outcomeText(outcome: GameOutcome, sideToMove: Player, turns: number, unit = "seed"): string {
  const s = outcome.southScore;
  const n = outcome.northScore;
  const why = reasonText(outcome.reason, outcome, sideToMove, turns);
  if (outcome.result === GameResult.DRAW || outcome.result === GameResult.UNSPECIFIED) return `Draw ${s}-${n}: ${why}`;
  const who = outcome.result === GameResult.SOUTH_WINS ? "South" : "North";
  const margin = Math.abs(s - n);
  return `${who} wins ${s}-${n}${margin ? ` (by ${amount(margin, unit)})` : ""}: ${why}`;
}

/**
 * A score in words, given the player it is from the point of view of: `South wins with best play`,
 * `a draw with best play`, `North ahead by 1.5 seeds`, `level`.
 */
export function scoreWords(score: Score | undefined, mover: Player, unit = "seed"): string {
  const v = score?.value;
  // The endgame databases' exact final margin, when the score carries one.
  const by = score?.finalMargin !== undefined && score.finalMargin !== 0 ? ` by ${amount(Math.abs(score.finalMargin), unit)}` : "";
  switch (v?.case) {
    case "winsIn":
      return `${sideName(mover)} wins${by} with best play`;
    case "losesIn":
      return `${sideName(opponent(mover))} wins${by} with best play`;
    case "draw":
      return "a draw with best play";
    case "centi": {
      if (v.value === 0) return "level";
      const ahead = v.value > 0 ? mover : opponent(mover);
      return `${sideName(ahead)} ahead by ${amount(Math.abs(v.value) / 100, unit)}`;
    }
    default:
      return "not known";
  }
}

function proven(score: Score | undefined): boolean {
  const c = score?.value.case;
  return c === "winsIn" || c === "losesIn" || c === "draw";
}

/**
 * What a played move cost, in words: `lost 1.5 seeds` for heuristic scores; where either score is
 * a proven result, both positions in words (the API's loss then counts a proven result as the
 * family's largest margin, a number that means nothing to a player).
 */
export function lossWords(t: TurnAnalysis, unit = "seed"): string {
  if (proven(t.bestScore) || proven(t.playedScore)) {
    const best = scoreWords(t.bestScore, t.player, unit);
    const played = scoreWords(t.playedScore, t.player, unit);
    if (t.playedMove === t.bestMove || best === played) return best;
    return `after which ${best}; after ${t.playedMove} ${played}`;
  }
  return t.loss ? `lost ${amount(t.loss / 100, unit)}` : "lost nothing";
}

/** An amount of seeds short enough for a hole: `1.2`, `12` (whole seeds from ten up). */
function shortAmount(centi: number): string {
  const tenths = Math.round(Math.abs(centi) / 10) / 10;
  return tenths >= 10 ? String(Math.round(Math.abs(centi) / 100)) : tenths.toFixed(1);
}

/**
 * A move's score as its hole shows it, at most four characters: `+1.2`, `−12`, `0`, or a proven
 * `win`, `loss`, `draw` (for the player making the move). The whole score goes in the hole's title.
 */
export function badgeText(score: Score | undefined): string {
  const v = score?.value;
  switch (v?.case) {
    case "centi": {
      const amount = shortAmount(v.value);
      if (Number(amount) === 0) return "0";
      return `${v.value > 0 ? "+" : "\u2212"}${amount}`;
    }
    case "winsIn":
      return "win";
    case "losesIn":
      return "loss";
    case "draw":
      return "draw";
    default:
      return "?";
  }
}

/**
 * Who is ahead and by how much, for the evaluation bar's caption: `South +1.2`, `North +0.5`,
 * `level`, or a proven `South wins`, `North wins`, `draw`.
 */
export function advantageText(score: Score | undefined, mover: Player): string {
  const v = score?.value;
  switch (v?.case) {
    case "winsIn":
      return `${sideName(mover)} wins`;
    case "losesIn":
      return `${sideName(opponent(mover))} wins`;
    case "draw":
      return "draw";
    case "centi": {
      const amount = shortAmount(v.value);
      if (Number(amount) === 0) return "level";
      return `${sideName(v.value > 0 ? mover : opponent(mover))} +${amount}`;
    }
    default:
      return "not known";
  }
}
