export { FeedFailure, FeedRunner, FEEDS_DIR, FIRST_NEED_WAIT_MS, type FeedAnswer, type FeedCopy, type FeedDef, type FeedFetchContext, type FeedState, type FeedStatus, type Fonte } from './feed'
export { FonteFeed, FonteEstado, STATUS_FONTE } from './model'
export { avisoDaFonte, idadeEmPalavras } from './aviso'
