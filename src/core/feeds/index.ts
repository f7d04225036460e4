export { FeedRunner, FEEDS_DIR, FIRST_NEED_WAIT_MS, type FeedAnswer, type FeedCopy, type FeedDef, type FeedFetchContext, type FeedHealth, type Fonte } from './feed'
export { FonteFeed } from './model'
