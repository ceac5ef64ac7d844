import type { Response } from "express";
import { errorObject, type JsonRpcId } from "../rpc/message.js";
import type { ProtocolError } from "../rpc/protocol-error.js";

export function sendRpcError(res: Response, id: JsonRpcId, err: ProtocolError): void {
  res.status(err.httpStatus).json({ jsonrpc: "2.0", id, error: errorObject(err) });
}
