/** Hand-built .npy arrays and .npz (zip) files for the CLI's reader tests, written byte by byte as numpy writes them. */
import { constants, deflateRawSync } from 'node:zlib';

/** A .npy array: header dict and raw data (a shape entry may be any text, as a damaged header's). */
export function npy(descr: string, shape: Array<number | string>, data: Uint8Array, fortran = false): Buffer {
  let header = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), data]);
}

/** An entry's data already deflated, and the size it declares uncompressed. */
export interface Deflated {
  deflated: Buffer;
  size: number;
}

/**
 * `head` followed by `zeros` zero bytes, deflated without deflating them all: one deflated MiB
 * of zeros repeated (each block refers only to itself), then the rest as the final block.
 */
export function deflatedZeros(head: Buffer, zeros: number): Deflated {
  const MiB = 1 << 20;
  const open = { finishFlush: constants.Z_SYNC_FLUSH };
  const block = deflateRawSync(Buffer.alloc(MiB), open);
  const parts = [deflateRawSync(head, open)];
  for (let i = 0; i < Math.floor(zeros / MiB); i++) parts.push(block);
  parts.push(deflateRawSync(Buffer.alloc(zeros % MiB)));
  return { deflated: Buffer.concat(parts), size: head.length + zeros };
}

/**
 * A zip of the entries (stored, or deflated), as np.savez writes it; zip64 records when asked.
 * An entry given already deflated is written as it is, with the size it declares.
 */
export function zip(entries: Array<[string, Buffer | Deflated]>, deflate = false, zip64 = false): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, entry] of entries) {
    const given = Buffer.isBuffer(entry) ? undefined : entry;
    const data = Buffer.isBuffer(entry) ? entry : { length: entry.size };
    const body = given ? given.deflated : deflate ? deflateRawSync(data as Buffer) : (data as Buffer);
    const n = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(deflate || given ? 8 : 0, 8);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(deflate || given ? 8 : 0, 10);
    central.writeUInt32LE(zip64 ? 0xffffffff : body.length, 20);
    central.writeUInt32LE(zip64 ? 0xffffffff : data.length, 24);
    central.writeUInt16LE(n.length, 28);
    central.writeUInt16LE(zip64 ? 28 : 0, 30);
    central.writeUInt32LE(zip64 ? 0xffffffff : offset, 42);
    // zip64 extra field: uncompressed size, compressed size, local header offset
    const extra = Buffer.alloc(zip64 ? 28 : 0);
    if (zip64) {
      extra.writeUInt16LE(1, 0);
      extra.writeUInt16LE(24, 2);
      extra.writeBigUInt64LE(BigInt(data.length), 4);
      extra.writeBigUInt64LE(BigInt(body.length), 12);
      extra.writeBigUInt64LE(BigInt(offset), 20);
    }
    locals.push(local, n, body);
    centrals.push(central, n, extra);
    offset += 30 + n.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 8);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 10);
  end.writeUInt32LE(zip64 ? 0xffffffff : cd.length, 12);
  end.writeUInt32LE(zip64 ? 0xffffffff : offset, 16);
  if (!zip64) return Buffer.concat([...locals, cd, end]);
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeBigUInt64LE(BigInt(entries.length), 24);
  record.writeBigUInt64LE(BigInt(entries.length), 32);
  record.writeBigUInt64LE(BigInt(cd.length), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + cd.length), 8);
  locator.writeUInt32LE(1, 16);
  return Buffer.concat([...locals, cd, record, locator, end]);
}
