// A thread of the describe stage's pool (describePool.ts): it compiles the shapes once, when the
// load validates, then describes each batch it is sent (describeBatch.ts).
import { workerData } from 'node:worker_threads';
import { serve } from '../../threads/serve';
import { compiledShapes } from './compiledShapes';
import { describeBatch, type DescribeBatch } from './describeBatch';
import type { DescribeWorkerData } from './describePool';

const { shapesFile } = workerData as DescribeWorkerData;
const shapes = shapesFile === undefined ? undefined : compiledShapes(shapesFile);

serve((batch: DescribeBatch) => describeBatch(batch, shapes));
