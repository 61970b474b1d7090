/** Why a part's content was refused: answered 400, whichever thread decoded it. */
export class PartContentError extends Error {}
