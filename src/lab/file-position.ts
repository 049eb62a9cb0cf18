/** A place in the lab file: 1-based line and column. */
export interface Pos {
  line: number;
  col: number;
}
