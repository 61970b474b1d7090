import { createSocket } from "node:dgram";
import type { AddressInfo } from "node:net";
import dns2 from "dns2";

const { Packet } = dns2;
// RFC 1035 §4.1.1: "name error" (dns2 3.0.0's types do not declare its RCODE table).
const NXDOMAIN = 3;
type Answer = Parameters<typeof Packet.prototype.answers.push>[0];

/** A DNS server on 127.0.0.1 answering the CNAME and TXT records a test sets, NXDOMAIN otherwise. */
export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for DNS_RESOLVER. */
  address: string;
  setCname(hostname: string, target: string): void;
  /** One TXT record per value; a value given as an array is one record of several character-strings. */
  setTxt(hostname: string, values: (string | string[])[]): void;
  /** Forgets every record of `hostname`. */
  clear(hostname: string): void;
  /** How many questions it was asked. */
  readonly questions: number;
  close(): Promise<void>;
}

/** Starts a real DNS server (the `dns2` package, over UDP) on a free port of 127.0.0.1. */
export async function startTestDns(): Promise<TestDnsServer> {
  const cnames = new Map<string, string>();
  const txts = new Map<string, (string | string[])[]>();
  let questions = 0;
  const server = dns2.createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    for (const question of request.questions) {
      questions++;
      const name = question.name.toLowerCase().replace(/\.$/, "");
      const cname = cnames.get(name);
      const txt = txts.get(name);
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 1 };
      if (cname !== undefined && (question.type === Packet.TYPE.CNAME || question.type === Packet.TYPE.A)) {
        response.answers.push({ ...base, type: Packet.TYPE.CNAME, domain: cname } as unknown as Answer);
      } else if (txt !== undefined && question.type === Packet.TYPE.TXT) {
        for (const value of txt)
          response.answers.push({ ...base, type: Packet.TYPE.TXT, data: value } as unknown as Answer);
      } else if (cname === undefined && txt === undefined) {
        response.header.rcode = NXDOMAIN;
      }
    }
    send(response);
  });
  await server.listen(0, "127.0.0.1");
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    setCname: (hostname, target) => cnames.set(hostname, target),
    setTxt: (hostname, values) => txts.set(hostname, values),
    clear: (hostname) => {
      cnames.delete(hostname);
      txts.delete(hostname);
    },
    get questions() {
      return questions;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A UDP socket on 127.0.0.1 that takes DNS questions and never answers: a resolver that times out. */
export async function startSilentDns(): Promise<{ address: string; close(): Promise<void> }> {
  const socket = createSocket("udp4");
  socket.on("message", () => undefined);
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
