import * as tf from '@tensorflow/tfjs';

// Quiet tfjs's one-time "install tfjs-node" banner in test output.
tf.env().set('IS_TEST', true);
