import './base.css';
import './taskImport.css';
